package record

import (
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/partnercommerce/conformance/internal/jsonscan"
)

// Payment kinds: how a create request asks to be paid.
const (
	KindBalance = "balance" // method 0, use_balance
	KindCoins   = "coins"   // method 0, use_coin
	KindGateway = "gateway" // a gateway method, neither balance nor coins
)

// Outcomes of a create request, as the ledger records them.
const (
	OutcomeCreated   = "created"   // HTTP 200, status true
	OutcomeDuplicate = "duplicate" // HTTP 409
	OutcomeRefused   = "refused"   // any other HTTP 4xx: nothing may be debited
	// OutcomeThrottled: a 429, or a 503 with Retry-After: refused for the
	// rate, not processed; reconciled as a refusal (nothing may be debited).
	OutcomeThrottled = "throttled"
	OutcomeUncertain = "uncertain" // no response (timeout, transport error) or 5xx
	// OutcomeNotDelivered: no connection could be made, so no byte of the
	// request reached the server: certainly not processed.
	OutcomeNotDelivered = "not-delivered"
	// OutcomeGateway: a gateway in front of the target answered instead
	// of the API (record.Result.Gateway): whether the API processed the
	// request is not known, so it is reconciled as an uncertain one, and
	// looked up.
	OutcomeGateway = "gateway"
)

// Payment is one create-payment request and what became of it. The ledger
// of a run holds one Payment per request (an idempotency wave holds N with
// the same partner_trx_id).
type Payment struct {
	ID    string `json:"partner_trx_id"`
	Seq   uint64 `json:"seq"`
	Shard int    `json:"shard"`
	Wave  int    `json:"wave_size,omitempty"` // N for idempotency waves
	// Attempt counts the sends of the id by the retry scenario, from 1; 0
	// in the other scenarios.
	Attempt   int    `json:"attempt,omitempty"`
	Account   string `json:"account"`
	Kind      string `json:"kind"`
	ProductID int64  `json:"product_id"`
	MethodID  int64  `json:"method_id"`
	// MaxBalance and MaxCoins are the most this request could debit; they
	// bound an uncertain request in reconciliation.
	MaxBalance int64 `json:"max_balance"`
	MaxCoins   int64 `json:"max_coins"`

	// At is when the request was sent.
	At time.Time `json:"at,omitzero"`
	// Latency is how long it waited for its answer (to its timeout,
	// without one): it was in flight from At for Latency (OverlapTally).
	Latency           time.Duration `json:"latency,omitempty"`
	Outcome           string        `json:"outcome"`
	Code              int           `json:"code,omitempty"`
	Message           string        `json:"message,omitempty"`
	TransactionNumber string        `json:"transaction_number,omitempty"`
	Amount            *Amount       `json:"amount,omitempty"`

	// Lookup is the payment status check made after the run for the first
	// created request of each id; nil when none was made.
	Lookup *Lookup `json:"lookup,omitempty"`
}

// Lookup is the result of looking a created payment up through payment status.
type Lookup struct {
	Code              int     `json:"code"`
	Message           string  `json:"message,omitempty"`
	Error             string  `json:"error,omitempty"`
	TransactionNumber string  `json:"transaction_number,omitempty"`
	ProductID         int64   `json:"product_id,omitempty"` // the record's product.id
	Amount            *Amount `json:"amount,omitempty"`
	Transport         bool    // no answer: Error is the transport's
	// Gateway is set when a gateway answered the look-up instead of the
	// API: Error says which.
	Gateway bool `json:"gateway,omitempty"`
}

// EachLedgerEntry calls fn with each entry of the JSON lines read from r
// (as an encoding/json encoder writes them), one at a time.
func EachLedgerEntry(r io.Reader, fn func(*Payment) error) error {
	return eachJSONLine(r, "ledger entry", fn)
}

// AppendLedgerLine appends p as encoding/json encodes it, and a newline: the
// ledger line the collector writes for every create request while the
// attack runs, by hand because reflection was the larger part of the
// collector's time. A payment with a look-up (written after the attack)
// and a string or time encoding/json would write otherwise than plainly go
// through encoding/json; a property test holds the two equal.
func AppendLedgerLine(b []byte, p *Payment) ([]byte, error) {
	if p.Lookup != nil || !plainTime(p.At) || !jsonscan.Plain(p.ID) || !jsonscan.Plain(p.Account) || !jsonscan.Plain(p.Kind) ||
		!jsonscan.Plain(p.Outcome) || !jsonscan.Plain(p.Message) || !jsonscan.Plain(p.TransactionNumber) {
		j, err := json.Marshal(p)
		if err != nil {
			return b, err
		}
		return append(append(b, j...), '\n'), nil
	}
	b = append(b, `{"partner_trx_id":"`...)
	b = append(b, p.ID...)
	b = append(b, `","seq":`...)
	b = strconv.AppendUint(b, p.Seq, 10)
	b = append(b, `,"shard":`...)
	b = strconv.AppendInt(b, int64(p.Shard), 10)
	b = appendNumber(b, `,"wave_size":`, int64(p.Wave))
	b = appendNumber(b, `,"attempt":`, int64(p.Attempt))
	b = append(b, `,"account":"`...)
	b = append(b, p.Account...)
	b = append(b, `","kind":"`...)
	b = append(b, p.Kind...)
	b = append(b, `","product_id":`...)
	b = strconv.AppendInt(b, p.ProductID, 10)
	b = append(b, `,"method_id":`...)
	b = strconv.AppendInt(b, p.MethodID, 10)
	b = append(b, `,"max_balance":`...)
	b = strconv.AppendInt(b, p.MaxBalance, 10)
	b = append(b, `,"max_coins":`...)
	b = strconv.AppendInt(b, p.MaxCoins, 10)
	if !p.At.IsZero() {
		b = append(b, `,"at":"`...)
		b = p.At.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	b = appendNumber(b, `,"latency":`, int64(p.Latency))
	b = append(b, `,"outcome":"`...)
	b = append(b, p.Outcome...)
	b = append(b, '"')
	b = appendNumber(b, `,"code":`, int64(p.Code))
	if p.Message != "" {
		b = append(b, `,"message":"`...)
		b = append(b, p.Message...)
		b = append(b, '"')
	}
	if p.TransactionNumber != "" {
		b = append(b, `,"transaction_number":"`...)
		b = append(b, p.TransactionNumber...)
		b = append(b, '"')
	}
	if a := p.Amount; a != nil {
		b = append(b, `,"amount":{"balance_used":`...)
		b = strconv.AppendInt(b, a.BalanceUsed, 10)
		b = append(b, `,"coin_used":`...)
		b = strconv.AppendInt(b, a.CoinUsed, 10)
		b = append(b, `,"coin_value_used":`...)
		b = strconv.AppendInt(b, a.CoinValueUsed, 10)
		b = append(b, `,"gateway_payment":`...)
		b = strconv.AppendInt(b, a.GatewayPayment, 10)
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, a.Total, 10)
		b = append(b, '}')
	}
	return append(b, "}\n"...), nil
}

// appendNumber appends key and v, a number encoding/json leaves out when
// it is 0 (omitempty).
func appendNumber(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), v, 10)
}

// plainTime reports whether t's JSON is its RFC 3339 form with nanoseconds
// (a year of four digits and an offset of whole minutes: encoding/json
// refuses others).
func plainTime(t time.Time) bool {
	_, offset := t.Zone()
	return t.IsZero() || (t.Year() >= 0 && t.Year() <= 9999 && offset%60 == 0)
}
