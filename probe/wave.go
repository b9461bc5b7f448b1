package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
)

// finding is a rule a wave broke: the contract's error, the sentence it
// rests on, and the JSON pointer of the value that shows it ("" for none).
type finding struct {
	err      error
	sentence string
	pointer  string
	// counts is set when err already says what the wave's answers were.
	counts bool
	// answer is set when err is what an answer breaks of what every
	// answer carries (contract.CheckEnvelope): the cause is the answer's,
	// as every judge names it (verdict.ErrorCause).
	answer bool
}

// outcome is what one wave came to: judged, not judged (cause), or a
// finding; the warnings of the readings it departed from; the payments it
// sent and the script that sends them again.
type outcome struct {
	judged bool
	cause  string
	// short is why the case cannot go on: the funded customer's wallet
	// ran out (purse.short), or "".
	short    string
	fail     *finding
	warnings []contract.Warning
	payments int
	repro    string
	// seen says what the wave's answers were, for a failure: "1 created,
	// 7 refused with 409".
	seen string
}

// payment is one payment the probe sends: its partner_trx_id, product,
// destination number, method, and what pays.
type payment struct {
	id                  string
	product             product
	msisdn              string
	method              int64
	useBalance, useCoin bool
}

// request is the payment as the probe sends it.
func (pm payment) request(token string) request {
	body, _ := json.Marshal(map[string]any{"product_id": pm.product.id, "msisdn": pm.msisdn, "payment_method_id": pm.method,
		"use_balance": pm.useBalance, "use_coin": pm.useCoin, "partner_trx_id": pm.id})
	return request{op: contract.OpCreatePayment, method: http.MethodPost, path: pathPayment, token: token, body: body}
}

// tally counts the answers to payments sent with one partner_trx_id, and
// keeps what the created ones reported.
type tally struct {
	wave      contract.Wave
	throttled int
	created   []contract.Payment
	// unread is why a created answer could not be read ("" when all were).
	unread   string
	refusals map[string]int
	// fault is the first answer that breaks a rule on its own: a server
	// fault, a throttled payment processed, a 409 without the message.
	fault *finding
}

// add counts the answer a to the payment sent with id.
func (t *tally) add(a answer, id string) {
	t.throttled += min(a.throttled, 1)
	if t.fault == nil {
		t.fault = answerFault(a)
	}
	switch {
	case !a.answered():
		t.wave.Uncertain++
	case a.status == http.StatusOK:
		t.wave.Created++
		if p, _, err := contract.ReadCreated(a.body, id); p != nil {
			t.created = append(t.created, *p) // a rule it breaks is the suite's and the generated mode's to report
		} else if t.unread == "" {
			t.unread = fmt.Sprintf("a created payment's answer could not be read: %v", err)
		}
	case a.status == http.StatusConflict:
		t.wave.Duplicate++
	default:
		t.wave.Refused++
		if t.refusals == nil {
			t.refusals = map[string]int{}
		}
		t.refusals[strings.TrimSpace(fmt.Sprintf("%d %s", a.status, a.env.Message))]++
	}
}

// answerFault is the rule an answer to a payment breaks on its own: a
// server fault the document does not give, a throttled payment the server
// processed (a 409 when sent again), a 409 without section 7's message.
func answerFault(a answer) *finding {
	switch {
	case !a.answered():
		return nil
	case a.invalid != nil:
		// The body's format first: a text 409 is that, not a refusal
		// without section 7's message.
		return envelopeFinding("a payment's answer", a.invalid)
	case a.resent != nil:
		return &finding{err: a.resent, sentence: contract.SentenceThrottle}
	case a.status >= 500:
		if err := contract.CheckNoServerFault(contract.OpCreatePayment, a.status, a.env.Message); err != nil {
			return &finding{err: notTheAPIs(a, err), sentence: contract.SentenceServerFault}
		}
	case a.status == http.StatusConflict:
		if err := contract.CheckAnswer(a.status, a.env.Message, http.StatusConflict, contract.MsgDuplicate); err != nil {
			return &finding{err: fmt.Errorf("a payment refused as a reuse of its partner_trx_id: %w, not %d %q",
				err, http.StatusConflict, contract.MsgDuplicate), sentence: contract.MessageRow(contract.MsgDuplicate), pointer: "/message"}
		}
	}
	return nil
}

// envelopeFinding is the finding of an answer that breaks what every
// answer carries (contract.CheckEnvelope's err).
func envelopeFinding(what string, err error) *finding {
	sentence := contract.SentenceEnvelope
	if errors.Is(err, contract.ErrContentType) {
		sentence = contract.SentenceContentType
	}
	return &finding{err: fmt.Errorf("%s: %w", what, err), sentence: sentence, answer: true}
}

// seen says what the answers counted were: "1 created, 7 refused with
// 409, 1 without an answer".
func (t *tally) seen() string {
	var parts []string
	if t.wave.Created > 0 {
		parts = append(parts, fmt.Sprintf("%d created", t.wave.Created))
	}
	if t.wave.Duplicate > 0 {
		parts = append(parts, fmt.Sprintf("%d refused with 409", t.wave.Duplicate))
	}
	if len(t.refusals) > 0 {
		parts = append(parts, "refused: "+t.refused())
	}
	if t.wave.Uncertain > 0 {
		parts = append(parts, fmt.Sprintf("%d without an answer", t.wave.Uncertain))
	}
	return strings.Join(parts, ", ")
}

// notTheAPIs adds to err, the fault of answer a, that its body is not
// JSON when it is not: a page of a gateway or proxy in front of the API,
// rather than the API's answer.
func notTheAPIs(a answer, err error) error {
	if _, _, derr := contract.Decode(a.body); derr == nil {
		return err
	}
	page := strings.Join(strings.Fields(string(a.body)), " ")
	if len(page) > 80 {
		page = page[:80] + "…"
	}
	return fmt.Errorf("%w; its body is not JSON, so it is likely the page of a gateway or proxy in front of the API rather than the API's answer: %q", err, page)
}

// refused says the refusals counted, most frequent first: "8 × 422
// Saldo tidak mencukupi.".
func (t *tally) refused() string {
	parts := make([]string, 0, len(t.refusals))
	for k, n := range t.refusals {
		parts = append(parts, fmt.Sprintf("%d × %s", n, k))
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] > parts[j] })
	return strings.Join(parts, ", ")
}

// lookup is what a status lookup of a partner_trx_id found.
type lookup struct {
	// settled is false when the lookup got no answer the probe can read as
	// found or not found.
	settled, found bool
	record         contract.Record
	why            string // why it is not settled
	// fault is a server fault the document does not give, in place of an
	// answer.
	fault *finding
}

// lookupTries bounds the status lookups of one partner_trx_id that get no
// answer.
const lookupTries = 3

// lookUp asks payment status for id with the payer's token: a 200 record
// is found, a 404 "Transaction not found" is not; a lookup without an
// answer is asked again, lookupTries times in all.
func (w *world) lookUp(ctx context.Context, p *payer, id string) lookup {
	return w.lookUpBy(ctx, "", p.token, "partner_trx_id", id)
}

// lookUpBy asks payment status for the payment whose key (partner_trx_id
// or transaction_number) is id, with a partner's secret key ("": the
// profile's) and an account's token, as lookUp does.
func (w *world) lookUpBy(ctx context.Context, secret, token, key, id string) lookup {
	q := url.Values{key: {id}}.Encode()
	var a answer
	for range lookupTries {
		a = w.c.do(ctx, request{op: contract.OpGetPaymentStatus, method: http.MethodGet, path: pathStatus, query: q, secret: secret, token: token})
		if a.answered() || ctx.Err() != nil {
			break
		}
	}
	switch {
	case !a.answered():
		return lookup{why: fmt.Sprintf("the status lookup of %s got no answer: %v", id, a.err)}
	case a.status >= 500:
		if err := contract.CheckNoServerFault(contract.OpGetPaymentStatus, a.status, a.env.Message); err != nil {
			return lookup{why: err.Error(), fault: &finding{err: fmt.Errorf("the status lookup of %s: %w", id, notTheAPIs(a, err)), sentence: contract.SentenceServerFault}}
		}
	case a.status == http.StatusNotFound && a.env.Message == contract.MsgNotFound:
		return lookup{settled: true}
	case a.status != http.StatusOK:
		return lookup{why: fmt.Sprintf("the status lookup of %s answered %s", id, answerError(a))}
	}
	var rec struct {
		Data struct {
			PartnerTrxID      string `json:"partner_trx_id"`
			TransactionNumber string `json:"transaction_number"`
			Product           struct {
				ID int64 `json:"id"`
			} `json:"product"`
			Amount *api.Amount `json:"amount"`
		} `json:"data"`
	}
	if err := json.Unmarshal(a.body, &rec); err != nil || rec.Data.Amount == nil {
		return lookup{why: fmt.Sprintf("the status record of %s does not decode with an amount", id)}
	}
	d := rec.Data
	return lookup{settled: true, found: true, record: contract.Record{PartnerTrxID: d.PartnerTrxID, TransactionNumber: d.TransactionNumber,
		ProductID: d.Product.ID, Amount: *d.Amount}}
}

// readWallet reads the payer's wallet for a wave: a server fault the
// document does not give is a finding; any other failure leaves the wave
// not judged (cause).
func (w *world) readWallet(ctx context.Context, p *payer, when string) (contract.Wallet, *outcome) {
	wl, a, err := w.walletOf(ctx, p)
	if a.answered() && a.invalid != nil {
		return contract.Wallet{}, &outcome{fail: envelopeFinding(p.label+"'s profile "+when, a.invalid)}
	}
	if err == nil {
		return wl, nil
	}
	if a.answered() && a.status >= 500 {
		if ferr := contract.CheckNoServerFault(contract.OpGetCustomerProfile, a.status, a.env.Message); ferr != nil {
			return contract.Wallet{}, &outcome{fail: &finding{err: notTheAPIs(a, ferr), sentence: contract.SentenceServerFault}}
		}
	}
	return contract.Wallet{}, &outcome{cause: fmt.Sprintf("%s's profile %s could not be read: %v", p.label, when, err)}
}

// walletFinding is the outcome of the wallet after a wave against what
// the created payments reported leaving (contract.CheckWalletAsReported),
// or nil when it holds that; a departure by a reading is a warning.
func (w *world) walletFinding(before contract.Wallet, taken []api.Amount, after contract.Wallet) (*finding, []contract.Warning) {
	want := contract.Exactly(before)
	for _, a := range taken {
		want = want.After(a)
	}
	rd, err := contract.CheckWalletAsReported(want, after)
	switch {
	case err == nil:
		return nil, nil
	case rd.ID != "" && !w.opts.Strict:
		return nil, []contract.Warning{rd.Warn(strings.TrimSuffix(err.Error(), " ("+rd.Sentence+" "+rd.Text+")"))}
	}
	return &finding{err: err, sentence: contract.SentenceWalletAsReported, pointer: walletPointer(want.Reported, after)}, nil
}

// recordFinding compares the status record of the one payment created with
// the answer that created it: another transaction breaks section 4.7,
// other amounts the reading status-record-amounts (a warning, unless
// strict).
func (w *world) recordFinding(created contract.Record, got contract.Record) (*finding, []contract.Warning) {
	if err := contract.CheckRecordNamed(created, got); err != nil {
		return &finding{err: err, sentence: contract.SentenceRecordNamed, pointer: "/data/transaction_number"}, nil
	}
	err := contract.CheckRecordAsCreated(created, got)
	if err == nil {
		return nil, nil
	}
	rd := contract.MustReading("status-record-amounts")
	if w.opts.Strict {
		return &finding{err: fmt.Errorf("reading %s (strict run): %w", rd.ID, err), sentence: rd.Sentence, pointer: "/data/amount"}, nil
	}
	return nil, []contract.Warning{rd.Warn(strings.TrimSuffix(err.Error(), " ("+rd.Sentence+" "+rd.Text+")"))}
}
