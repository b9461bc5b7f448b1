package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/cucumber/godog"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/verdict"
)

// The replay steps send one request exactly as written: the generated mode
// writes a failing request of a schema property as a feature file in these
// words, so that `conformance FILE` runs it against the target and fails
// the same way. A partner_trx_id the generated mode made up (gen-...) is
// replaced by a fresh one, since the target may hold the original already;
// a defect of the id (its length) is kept.

func (s *scenario) registerReplay(sc stepper) {
	sc.Step(`^`+actorRE+` sends (GET|POST) "([^"]*)" with the JSON body:$`, s.sendWritten)
	sc.Step(`^`+actorRE+` sends (GET|POST) "([^"]*)"$`, func(ctx context.Context, actor, method, path string) error {
		return s.sendWritten(ctx, actor, method, path, nil)
	})
	sc.Step(`^the target refuses it with a 4xx status$`, s.expectRefusal)
	sc.Step(`^the funded customer of the partner, holding at least (\d+) rupiah and (\d+) coins$`, s.fundedHolding)
}

// sendWritten sends method path with body as actor: the partner's secret
// key and the actor's token. A payment it creates takes from the actor's
// wallet what it reports (reportedWallet), as a generated sequence's do.
func (s *scenario) sendWritten(ctx context.Context, actor, method, path string, body *godog.DocString) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	var raw []byte
	if body != nil {
		raw = s.freshTrxID([]byte(body.Content))
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(s.h.profile.BaseURL, "/")+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-SECRET-KEY", a.partner.secretKey)
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	ex, err := s.send(func() (*http.Response, error) { return (&recorder{s: s}).Do(req) })
	if err != nil || method != http.MethodPost || path != "/client/v2/payment" || ex.Status != http.StatusOK {
		return err
	}
	var created struct {
		Data struct {
			Transaction struct {
				Amount api.Amount `json:"amount"`
			} `json:"transaction"`
		} `json:"data"`
	}
	if json.Unmarshal(ex.RespBody, &created) == nil {
		s.setReported(actor, s.reportedWallet(actor).After(created.Data.Transaction.Amount))
	}
	return nil
}

// freshTrxID replaces the made-up head of the partner_trx_id of a JSON
// body (gen-RUN-N: repro.MadeUp) by a fresh id of this run, and keeps the
// rest: the characters after the head, and the id's length in characters,
// so that an id one character too long stays one character too long
// (repro.FreshID, as a reproduction's curl line does). Any other body is
// sent as written.
func (s *scenario) freshTrxID(body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	var id string
	if json.Unmarshal(m["partner_trx_id"], &id) != nil {
		return body
	}
	fresh, ok := repro.FreshID(id, s.nextTrxID())
	if !ok {
		return body
	}
	out, _ := json.Marshal(fresh) // a string always marshals
	return bytes.Replace(body, m["partner_trx_id"], out, 1)
}

// expectRefusal checks that the last request was refused with a 4xx
// status: the document refuses a request that breaks its schema.
func (s *scenario) expectRefusal() error {
	ex := s.last
	if ex == nil {
		return s.failure(ex, "§7", "a 4xx refusal", "no request was sent")
	}
	if ex.Status/100 != 4 {
		return s.failure(ex, "§7: the document refuses this request", "a 4xx refusal", "got status %d", ex.Status)
	}
	return nil
}

// fundedHolding takes the funded customer of the profile, as "the funded
// customer of the partner" does, and requires its wallet to hold what a
// reproduction needs: what its payments may take and the profile's
// reserve. A wallet an earlier run (or the fault) spent or reset cannot show
// the fault the reproduction is about, nor its absence: the scenario is not
// judged (the run is INCOMPLETE, not FAIL), saying what to fund or reset.
func (s *scenario) fundedHolding(ctx context.Context, balance, coins int64) error {
	const actor = "the funded customer"
	if err := s.sharedCustomer(ctx, actor, s.h.profile.FundedCustomer.Token); err != nil {
		return err
	}
	if w := s.wallets[actor]; w.balance < balance || w.coins < coins {
		return s.notJudgedBecause(verdict.Cause{Headline: "the funded customer holds less than the reproduction needs: fund it, or restart the target from its data set"},
			fmt.Sprintf("the funded customer (profile funded_customer) holds %d rupiah and %d coins, and the reproduction needs at least %d rupiah and %d coins: "+
				"an earlier run, or the fault, spent or reset them, so it cannot show the fault (nor its absence); "+
				"fund the account to at least that (or restart the target from its data set) and run it again", w.balance, w.coins, balance, coins))
	}
	return nil
}
