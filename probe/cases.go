package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
)

// The cases, by name.
const (
	caseOneID     = "concurrent payments with one partner_trx_id"
	caseOneWallet = "concurrent payments from one wallet"
)

// drawPayment draws a payment of payer p with a fresh partner_trx_id: a
// product it may pay for and a number of its operator, from its wallet's
// balance (or through its gateway method); planWave says how it is paid
// within what the probe may spend.
func (w *world) drawPayment(p *payer) payment {
	pr := p.products[w.rng.IntN(len(p.products))]
	return payment{id: w.trxID(), product: pr, msisdn: w.msisdn(pr), method: p.method, useBalance: p.fromWallet()}
}

// waveRun is one wave as it goes: its payer, the answers counted, the
// payments sent, and the script that sends them again.
type waveRun struct {
	w      *world
	p      *payer
	before contract.Wallet
	t      tally
	sent   int
	script func() string
}

// fail is the outcome of the wave broken by f.
func (r *waveRun) fail(f *finding) outcome {
	return outcome{fail: f, payments: r.sent, repro: r.script(), seen: r.t.seen()}
}

// notJudged is the outcome of the wave the target kept from judging.
func (r *waveRun) notJudged(format string, args ...any) outcome {
	return outcome{cause: fmt.Sprintf(format, args...), payments: r.sent}
}

// start reads the payer's wallet before the wave and plans the wave's n
// payments (at least least of them) from what it holds (planWave); a
// non-nil outcome ends the wave.
func (r *waveRun) start(ctx context.Context, name string, n, least int) ([]payment, *outcome) {
	before, o := r.w.readWallet(ctx, r.p, "before the wave")
	if o != nil {
		return nil, o
	}
	r.before = before
	pms, short := r.w.planWave(name, r.p, before, n, least)
	if short != "" {
		return nil, &outcome{short: short}
	}
	return pms, nil
}

// end reads the payer's wallet after the wave and judges it against what
// the created payments reported taking (taken; none: a refusal takes
// nothing).
func (r *waveRun) end(ctx context.Context, taken []api.Amount, warnings []contract.Warning) outcome {
	after, o := r.w.readWallet(ctx, r.p, "after the wave")
	if o != nil {
		o.payments = r.sent
		return *o
	}
	if len(taken) == 0 {
		if err := contract.CheckRefusalTakesNothing(r.before, after); err != nil {
			return r.fail(&finding{err: err, sentence: contract.SentenceRefusalTakesNothing, pointer: walletPointer(r.before, after)})
		}
	} else if f, warns := r.w.walletFinding(r.before, taken, after); f != nil {
		return r.fail(f)
	} else {
		warnings = append(warnings, warns...)
	}
	return outcome{judged: true, payments: r.sent, warnings: warnings}
}

// oneIDWave sends WaveSize payments with one fresh partner_trx_id at once;
// afterRefusal first sends a payment with that id that the document
// refuses (the balance and coin method with neither chosen, §4.6 rule 2).
// One payment is created and the rest are refused with 409 and section
// 7's message, or, after the refusal, every one is refused with 409 (the
// refusal used the id); the status lookup finds what was created; the
// wallet lost what the created payment reported taking, nothing else.
func (w *world) oneIDWave(ctx context.Context, p *payer, afterRefusal bool) outcome {
	n := w.opts.WaveSize
	r := &waveRun{w: w, p: p}
	planned, o := r.start(ctx, caseOneID, 1, 1) // a correct server creates one payment
	if o != nil {
		return *o
	}
	pm := planned[0]
	var refusal *payment
	if afterRefusal {
		rf := pm
		rf.method, rf.useBalance, rf.useCoin = contract.InternalMethodID, false, false
		refusal = &rf
	}
	r.script = func() string { return w.script(caseOneID, p, refusal, repeat(pm, n), true) }
	if refusal != nil {
		if o := r.refuseFirst(ctx, *refusal); o != nil {
			return *o
		}
	}
	reqs := make([]request, n)
	for i := range reqs {
		reqs[i] = pm.request(p.token)
		reqs[i].shared = true
	}
	for _, a := range w.c.wave(ctx, reqs) {
		r.t.add(a, pm.id)
	}
	r.sent += n
	if r.t.fault != nil {
		return r.fail(r.t.fault)
	}
	lk := w.lookUp(ctx, p, pm.id)
	switch {
	case lk.fault != nil:
		return r.fail(lk.fault)
	case !lk.settled:
		return r.notJudged("%s", lk.why)
	}
	if err := contract.CheckFound(r.t.wave, r.t.throttled, lk.found); err != nil {
		sentence := contract.SentenceCreatedFound
		if errors.Is(err, contract.ErrThrottledProcessed) {
			sentence = contract.SentenceThrottle
		}
		return r.fail(&finding{err: err, sentence: sentence, counts: true})
	}
	if err := contract.CheckWave(r.t.wave); err != nil {
		return r.fail(&finding{err: err, sentence: contract.SentenceUniqueTrxID, counts: true})
	}
	return r.afterOneID(ctx, pm, lk, refusal != nil)
}

// createdFirst is why a wave whose refused payment was created is not
// judged.
const createdFirst = "the payment that starts the wave, with the balance and coin method and neither balance nor coins chosen, " +
	"was created where §4.6 rule 2 refuses it (that rule is the suite's to judge), so no refused payment's id could be reused"

// refuseFirst sends the refused payment that starts a wave and checks that
// it created nothing (a status lookup); a non-nil outcome ends the wave.
func (r *waveRun) refuseFirst(ctx context.Context, refusal payment) *outcome {
	a := r.w.c.do(ctx, refusal.request(r.p.token))
	r.sent++
	if a.status == http.StatusOK {
		o := r.notJudged(createdFirst)
		return &o
	}
	if f := answerFault(a); f != nil {
		o := r.fail(f)
		return &o
	}
	if a.status == http.StatusConflict {
		o := r.fail(&finding{err: contract.CheckWave(contract.Wave{Duplicate: 1}), sentence: contract.SentenceUniqueTrxID, counts: true})
		return &o
	}
	// Refused, a use of the id or not (the document does not say), or
	// without an answer: the lookup says whether it was created.
	if a.answered() {
		r.t.wave.Refused++
	} else {
		r.t.wave.Uncertain++
	}
	lk := r.w.lookUp(ctx, r.p, refusal.id)
	var o outcome
	switch err := contract.CheckFound(r.t.wave, a.throttled, lk.found); {
	case lk.fault != nil:
		o = r.fail(lk.fault)
	case !lk.settled:
		o = r.notJudged("%s", lk.why)
	case lk.found && !a.answered():
		o = r.notJudged(createdFirst)
	case err != nil:
		o = r.fail(&finding{err: err, sentence: contract.SentenceCreatedFound, counts: true})
	default:
		return nil
	}
	return &o
}

// afterOneID judges what a wave with one partner_trx_id created: the one
// payment created, as its status record shows it, or the payment without
// an answer the lookup found, or nothing after a refusal that used the id;
// then the wallet.
func (r *waveRun) afterOneID(ctx context.Context, pm payment, lk lookup, afterRefusal bool) outcome {
	t := &r.t
	if t.unread != "" {
		return r.notJudged("%s", t.unread)
	}
	var taken []api.Amount
	var warnings []contract.Warning
	switch {
	case len(t.created) == 1:
		c := t.created[0]
		taken = append(taken, c.Amount)
		created := contract.Record{PartnerTrxID: pm.id, TransactionNumber: c.TransactionNumber, ProductID: pm.product.id, Amount: c.Amount}
		r.w.keep(r.p, pm.id, c.TransactionNumber)
		f, warns := r.w.recordFinding(created, lk.record)
		if f != nil {
			return r.fail(f)
		}
		warnings = warns
	case lk.found: // a payment without an answer was created
		taken = append(taken, lk.record.Amount)
	case afterRefusal && len(t.refusals) == 0 && t.wave.Duplicate > 0:
		// Every payment of the wave was refused with 409, or got no answer
		// and was not created: the refusal used the id. It takes nothing.
	default:
		what := t.refused()
		if t.wave.Uncertain > 0 {
			what = fmt.Sprintf("%s, and %s got no answer and were not created", what, readable.Plural(t.wave.Uncertain, "payment", "payments"))
		}
		return r.notJudged("no payment of the wave was created: %s", what)
	}
	return r.end(ctx, taken, warnings)
}

// oneWalletWave sends WaveSize payments from the payer's wallet at once, each with a fresh
// partner_trx_id, drawing for each a product and whether balance, coins or
// both pay: together they take no more than the wallet held, and the
// wallet lost exactly what the created ones reported taking.
func (w *world) oneWalletWave(ctx context.Context, p *payer) outcome {
	r := &waveRun{w: w, p: p}
	// A full wave: a race shows in the pairs of payments in flight
	// together, and a wave of two holds one pair where a wave of eight
	// holds 28; fewer, smaller waves would pass a race on too few pairs.
	pms, o := r.start(ctx, caseOneWallet, w.opts.WaveSize, w.opts.WaveSize)
	if o != nil {
		return *o
	}
	r.script = func() string { return w.script(caseOneWallet, p, nil, pms, false) }
	reqs := make([]request, len(pms))
	for i, pm := range pms {
		reqs[i] = pm.request(p.token)
	}
	answers := w.c.wave(ctx, reqs)
	r.sent = len(reqs)
	for i, a := range answers {
		r.t.add(a, pms[i].id)
	}
	taken, unsure, o := r.eachCreated(answers, pms)
	if o != nil {
		return *o
	}
	for _, id := range unsure {
		lk := w.lookUp(ctx, p, id)
		switch {
		case lk.fault != nil:
			return r.fail(lk.fault)
		case !lk.settled:
			return r.notJudged("%s", lk.why)
		}
		if lk.found {
			taken = append(taken, lk.record.Amount)
		}
	}
	if len(taken) == 0 {
		return r.notJudged("no payment of the wave was created: %s", r.t.refused())
	}
	var sum contract.Wallet
	for _, a := range taken {
		sum.Balance += a.BalanceUsed
		sum.Coins += a.CoinUsed
	}
	if err := contract.CheckTakenWithin(contract.Exactly(r.before), sum); err != nil {
		return r.fail(&finding{err: err, sentence: contract.SentenceSplit, pointer: "/data/transaction/amount"})
	}
	return r.end(ctx, taken, nil)
}

// eachCreated judges each answer of a wave of distinct partner_trx_ids on
// its own: no answer breaks a rule by itself, and none is a 409 (each id
// is fresh). It returns what the created ones took and the ids of the
// payments without an answer; a non-nil outcome ends the wave.
func (r *waveRun) eachCreated(answers []answer, pms []payment) (taken []api.Amount, unsure []string, o *outcome) {
	for i, a := range answers {
		one := tally{}
		one.add(a, pms[i].id)
		var out outcome
		switch err := contract.CheckWave(one.wave); {
		case one.fault != nil:
			out = r.fail(one.fault)
		case err != nil:
			out = r.fail(&finding{err: err, sentence: contract.SentenceUniqueTrxID})
		case one.unread != "":
			out = r.notJudged("%s", one.unread)
		default:
			for _, c := range one.created {
				taken = append(taken, c.Amount)
				r.w.keep(r.p, pms[i].id, c.TransactionNumber)
			}
			if one.wave.Uncertain > 0 {
				unsure = append(unsure, pms[i].id)
			}
			continue
		}
		return nil, nil, &out
	}
	return taken, unsure, nil
}

// repeat is n copies of pm.
func repeat(pm payment, n int) []payment {
	out := make([]payment, n)
	for i := range out {
		out[i] = pm
	}
	return out
}

// walletPointer is the JSON pointer of the profile's value that differs
// between two wallets.
func walletPointer(before, after contract.Wallet) string {
	if before.Balance != after.Balance {
		return "/data/balance/available"
	}
	return "/data/coin/available"
}
