package probe

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/verdict"
)

// caseFound looks up, after the waves, payments the whole run created, by
// each of the keys payment status takes (§4.7). No one scenario can judge
// it for every payment: none knows which payment was a partner's first on
// the target, and a server that loses that one (an index that starts one
// past its first entry) answers every other lookup right.
const caseFound = "every payment the run created is found by its transaction_number and its partner_trx_id"

// maxFound bounds the payments caseFound looks up (two lookups each): the
// first of each partner and of each account, then the earliest others.
const maxFound = 40

// Known is a payment created before the probe ran, or by it: who made it
// (the partner's secret key, "" for the profile's, and the account's
// token; Who names the account) and the keys
// payment status finds it by.
type Known struct {
	SecretKey, Token, Who           string
	PartnerTrxID, TransactionNumber string
	// provision is the body the probe provisioned the account with, when
	// it did: a reproduction provisions it again for its token.
	provision []byte
}

// keep notes a payment of payer p the target answered as created.
func (w *world) keep(p *payer, id, number string) {
	w.made = append(w.made, Known{Token: p.token, Who: p.label, PartnerTrxID: id, TransactionNumber: number, provision: p.provision})
}

// foundPicks is what caseFound looks up of all (in the order they were
// created): the first payment of each partner, then the first of each
// account, then the others in order, at most maxFound.
func foundPicks(all []Known) []Known {
	var picks []Known
	taken := make([]bool, len(all))
	pass := func(key func(Known) string) {
		seen := map[string]bool{}
		for i, k := range all {
			if len(picks) == maxFound {
				return
			}
			if kk := key(k); !seen[kk] {
				seen[kk] = true
				if !taken[i] {
					taken[i] = true
					picks = append(picks, k)
				}
			}
		}
	}
	pass(func(k Known) string { return k.SecretKey })
	pass(func(k Known) string { return k.SecretKey + "\x00" + k.Token })
	pass(func(k Known) string { return k.PartnerTrxID })
	return picks
}

// foundCase runs caseFound: each pick looked up by its transaction_number,
// then by its partner_trx_id; none started after the deadline but the
// first; the first lookup that does not find its payment, or finds
// another, fails the case.
func (w *world) foundCase(ctx context.Context, deadline time.Time) CaseResult {
	cr := CaseResult{Operation: contract.OpGetPaymentStatus, Case: caseFound}
	picks := foundPicks(append(append([]Known(nil), w.opts.Earlier...), w.made...))
	cr.Planned = len(picks)
	if len(picks) == 0 {
		// The cases that create payments say why none was: this one has
		// nothing to judge, and no cause of its own to add.
		cr.Status, cr.Reason = verdict.StatusSkipped, "no payment of the run was created, so there is none to look up"
		return cr
	}
	var causes []string
	for i, k := range picks {
		if ctx.Err() != nil || i > 0 && time.Now().After(deadline) {
			break
		}
		created := contract.Record{PartnerTrxID: k.PartnerTrxID, TransactionNumber: k.TransactionNumber}
		for _, key := range []string{"transaction_number", "partner_trx_id"} {
			id := k.PartnerTrxID
			if key == "transaction_number" {
				id = k.TransactionNumber
			}
			lk := w.lookUpBy(ctx, k.SecretKey, k.Token, key, id)
			var err error
			switch {
			case lk.fault != nil:
				err = lk.fault.err
			case !lk.settled:
				causes = append(causes, lk.why)
				continue
			default:
				err = contract.CheckFoundBy(key, created, lk.found, lk.record)
			}
			if err != nil {
				cr.Status, cr.Sentence = verdict.StatusFailed, contract.SentenceFound
				if lk.fault != nil {
					cr.Sentence = lk.fault.sentence
				}
				cr.Failure = strings.TrimSuffix(err.Error(), " ("+cr.Sentence+")")
				cr.Pointer = "/message"
				if lk.found {
					cr.Pointer = "/data/" + key
				}
				cr.Reproduction = w.foundScript(k, key, id)
				cr.Waves++
				return cr
			}
		}
		cr.Waves++
	}
	switch {
	case ctx.Err() != nil:
		cr.Status, cr.Reason = w.unfinished(ctx, "not run to its end")
	case cr.Waves == 0 || len(causes) > 0 && len(causes) == 2*cr.Waves:
		cr.Status, cr.Reason = verdict.StatusNotJudged, "no lookup could be judged: "+summarize(causes)
	default:
		cr.Status = verdict.StatusPassed
		var cut []string
		if cr.Waves < cr.Planned {
			cut = append(cut, fmt.Sprintf("%d of %d payments looked up: the time budget of %s ran out", cr.Waves, cr.Planned, readable.Duration(w.opts.Duration)))
		}
		if len(causes) > 0 {
			cut = append(cut, fmt.Sprintf("%s not judged: %s", readable.Plural(len(causes), "lookup", "lookups"), summarize(causes)))
		}
		cr.Cut = strings.Join(cut, "; ")
	}
	return cr
}

// foundScript is the shell script that asks payment status again for
// payment k by key (package repro: the secrets as variables named after
// their profile keys; a cashier the probe provisioned provisioned again
// for its token). The payment is the target's as the run left it: the
// script looks it up, it does not create it.
func (w *world) foundScript(k Known, key, id string) string {
	s := repro.New(w.opts.Profile, w.opts.ProfilePath, w.opts.Conn)
	s.Title(fmt.Sprintf("%s: the lookup of a payment the run created (seed %d, made by %s), asked again.", caseFound, w.opts.Seed, k.Who))
	secret := k.SecretKey
	if secret == "" {
		secret = w.c.secret
	}
	if k.provision != nil {
		s.Provisioned(k.Token, secret, "cashier", k.provision)
	}
	h := http.Header{"X-Secret-Key": {secret}, "Authorization": {"Bearer " + k.Token}}
	s.Add(repro.Request{Method: http.MethodGet, Path: pathStatus, Query: url.Values{key: {id}}.Encode(), Header: h})
	return s.String()
}
