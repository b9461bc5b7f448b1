package loadtest

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/jsonscan"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// operationIDs maps each op to its operation in openapi.yaml
// (internal/contract derives method, path and documented codes from it).
var operationIDs = map[string]string{
	record.OpCreate:    contract.OpCreatePayment,
	record.OpStatus:    contract.OpGetPaymentStatus,
	record.OpList:      contract.OpListProducts,
	record.OpSync:      contract.OpSyncProducts,
	record.OpProfile:   contract.OpGetCustomerProfile,
	record.OpMethods:   contract.OpListPaymentMethods,
	record.OpProvision: contract.OpProvisionAccount,
}

// documentedCodes returns, per op, the HTTP status codes openapi.yaml lists
// for it (the `default` response is not a documented code).
func documentedCodes() (map[string]map[int]bool, error) {
	ops, err := contract.Operations()
	if err != nil {
		return nil, err
	}
	out := map[string]map[int]bool{}
	for op, id := range operationIDs {
		out[op] = ops[id].Codes
	}
	return out, nil
}

type statusEnvelope struct {
	Message string `json:"message"`
	Data    struct {
		PartnerTrxID      string `json:"partner_trx_id"`
		TransactionNumber string `json:"transaction_number"`
		Product           struct {
			ID int64 `json:"id"`
		} `json:"product"`
		Amount record.Amount `json:"amount"`
	} `json:"data"`
}

// Every answer gets the checks of this file; its body is also judged
// against openapi.yaml's schema (contract.Validator, as the suite and the
// generated mode judge every answer) for the first schemaFirst answers of
// each operation and one in schemaEvery after: that validation costs
// 13-19 µs for a profile and 170-205 µs for a page of 20 products (go test
// -bench Validate ./internal/contract, on a shared machine, load average
// 1.5-3.5), more than the generator can spend on each answer at its
// highest rates, and an answer that breaks the schema breaks it on every
// call, so a sample finds it.
const (
	schemaFirst = 10
	schemaEvery = 100
)

// schemaSampled reports whether the answer to the order-th send of an
// operation (counted from 0) is judged against the schema.
func schemaSampled(order uint64) bool {
	return order < schemaFirst || order%schemaEvery == 0
}

// checked is the verdict on one response.
type checked struct {
	env       contract.Envelope
	violation string // the contract rule the response broke; "" if none
	// detail is the whole verdict on a violation: what was found, with
	// its figures and the sentence of the document it breaks (the
	// finding's exhibit shows it); marks note the members of the answer
	// it is about, by JSON pointer.
	detail string
	marks  map[string]string
	// payment is the created payment the answer shows (created true),
	// read even when it breaks a rule: what the server says it took.
	payment contract.Payment
	created bool
}

// checkResponse verifies one response of op against the contract: a
// documented status code, the envelope, and for a created payment the
// contract's reading and judgement of it (checkCreated); for a 409 the
// exact message.
func checkResponse(codes map[string]map[int]bool, op string, code int, body []byte, trxID string) checked {
	if !codes[op][code] {
		env, _, _ := contract.Decode(body)
		v := fmt.Sprintf("%s: HTTP %d is not documented for this operation", op, code)
		return checked{env: env, violation: v, detail: fmt.Sprintf("%s (%s)", v, contract.StatusesSentence(operationIDs[op]))}
	}
	if op == record.OpCreate && code == http.StatusOK {
		return checkCreated(body, trxID)
	}
	env, _, err := contract.Decode(body)
	switch {
	case err != nil:
		v := fmt.Sprintf("%s: HTTP %d: %v", op, code, err)
		return checked{violation: v, detail: fmt.Sprintf("%s (%s)", v, contract.SentenceEnvelope)}
	case op == record.OpCreate && code == http.StatusConflict && env.Message != contract.MsgDuplicate:
		return checked{env: env, violation: "create: HTTP 409 message is not the duplicate partner_trx_id message",
			detail: fmt.Sprintf("create: HTTP 409 with the message %q (%s — %s)", env.Message, contract.MessageRow(contract.MsgDuplicate), contract.MsgDuplicate)}
	}
	return checked{env: env}
}

// checkCreated judges the 200 answer to a create request with id trxID:
// contract.ReadCreated (status and message, the transaction's number and
// echoed id, the amount arithmetic), which createdFast spares when it can
// vouch for the answer.
func checkCreated(body []byte, trxID string) checked {
	if p, ok := createdFast(body, trxID); ok {
		return checked{env: contract.Envelope{Status: true, Message: contract.MsgCreated}, payment: p, created: true}
	}
	p, env, err := contract.ReadCreated(body, trxID)
	c := checked{env: env}
	if p != nil {
		c.payment, c.created = *p, true
	}
	switch {
	case err == nil:
		return c
	case p == nil && !errors.Is(err, contract.ErrCreatedData):
		c.violation = fmt.Sprintf("%s: HTTP %d: %v", record.OpCreate, http.StatusOK, err) // the envelope
	default:
		c.violation = "create: " + contract.RuleOf(err) // one rule per key of the tally, without the figures
	}
	c.detail = "create: HTTP 200: " + err.Error()
	for _, at := range contract.CreatedPlaces(err) {
		if c.marks == nil {
			c.marks = map[string]string{}
		}
		c.marks[at] = contract.RuleOf(err)
	}
	return c
}

// The checks' fast path. Reading a created payment's answer with
// encoding/json (contract.ReadCreated: a map of the envelope's fields,
// then the data again into maps) costs tens of allocations per response
// (docs/performance.md). createdFast reads the same answer in one pass
// without reflection (internal/jsonscan), but only when it can prove
// contract.ReadCreated would find nothing: a valid JSON object, status
// true, the success message, the echoed partner_trx_id and the five
// integer amounts that add up, every key it relies on spelled exactly,
// once, and without escapes. Anything else, however harmless, goes to
// contract.ReadCreated, which gives the verdict and its message: the fast
// path never decides a violation, so it can only make the checks lighter,
// never weaker (FuzzCreatedFast holds it to that).

// The keys a created answer holds once each, and those of its amount (in
// the order of amountFields).
const (
	kStatus uint16 = 1 << iota
	kMessage
	kData
	kTransaction
	kNumber
	kEcho
	kAmount
	kTotal
	kBalance
	kCoins
	kCoinValue
	kGateway
)

// amountFields are the amount's keys, their bits from kTotal on.
var amountFields = [...]string{"total", "balance_used", "coin_used", "coin_value_used", "gateway_payment"}

// keysSeen are the keys an answer has shown, one bit each.
type keysSeen uint16

// once records key bit k as seen, and fails on a second sight.
func (seen *keysSeen) once(k uint16) bool {
	if uint16(*seen)&k != 0 {
		return false
	}
	*seen |= keysSeen(k)
	return true
}

// createdFast reads body, the 200 answer to a create request with id
// trxID, into the transaction number and amount; ok is false when
// contract.ReadCreated must decide. Its readers of the nested objects are
// closures over one pass's state: methods calling one another through
// jsonscan.Scanner.Object would move that state to the heap, an
// allocation per answer.
func createdFast(body []byte, trxID string) (contract.Payment, bool) {
	s := jsonscan.New(body)
	var (
		p                     contract.Payment
		seen                  keysSeen
		status, ok            bool
		message, echo, number []byte
	)
	once := seen.once
	dst := [len(amountFields)]*int64{&p.Amount.Total, &p.Amount.BalanceUsed, &p.Amount.CoinUsed, &p.Amount.CoinValueUsed, &p.Amount.GatewayPayment}
	amount := func() bool {
		return s.Object(func(key []byte) bool {
			for i, name := range amountFields {
				if string(key) == name {
					n, ok := s.Int64()
					*dst[i] = n
					return ok && once(kTotal<<i)
				}
			}
			return s.Skip()
		})
	}
	transaction := func() bool {
		return s.Object(func(key []byte) bool {
			switch string(key) {
			case "transaction_number":
				number, ok = s.Text()
				return ok && once(kNumber)
			case "partner_trx_id":
				echo, ok = s.Text()
				return ok && once(kEcho)
			case "amount":
				return once(kAmount) && amount()
			}
			return s.Skip()
		})
	}
	data := func() bool {
		return s.Object(func(key []byte) bool {
			if string(key) == "transaction" {
				return once(kTransaction) && transaction()
			}
			return s.Skip()
		})
	}
	top := s.Object(func(key []byte) bool {
		switch string(key) {
		case "status":
			status, ok = s.Bool()
			return ok && once(kStatus)
		case "message":
			message, ok = s.Text()
			return ok && once(kMessage)
		case "data":
			return once(kData) && data()
		}
		return s.Skip()
	})
	const all = kStatus | kMessage | kData | kTransaction | kNumber | kEcho | kAmount | kTotal | kBalance | kCoins | kCoinValue | kGateway
	// Equal as bytes, the message and the echo are the strings below.
	if !top || !s.End() || uint16(seen) != all || string(message) != contract.MsgCreated || string(echo) != trxID {
		return contract.Payment{}, false
	}
	p.TransactionNumber, p.PartnerTrxID = string(number), trxID
	if contract.CheckCreated(contract.Created{Status: status, Message: contract.MsgCreated, TransactionNumber: p.TransactionNumber,
		PartnerTrxID: trxID, Amount: p.Amount}, trxID, contract.UnknownFee) != nil {
		return contract.Payment{}, false
	}
	return p, true
}
