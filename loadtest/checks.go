package loadtest

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/partnercommerce/conformance/internal/contract"
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

// Contract messages the checks compare exactly (internal/contract).
const (
	MsgCreated   = contract.MsgCreated
	MsgDuplicate = contract.MsgDuplicate
)

// DocumentedCodes returns, per op, the HTTP status codes openapi.yaml lists
// for it (the `default` response is not a documented code).
func DocumentedCodes() (map[string]map[int]bool, error) {
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

// checkEnvelope verifies what every body carries (internal/contract, the
// same reader as the conformance suite's) and returns the body's fields.
func checkEnvelope(body []byte) (contract.Envelope, map[string]json.RawMessage, string) {
	env, fields, err := contract.Decode(body)
	if err != nil {
		return contract.Envelope{}, nil, err.Error()
	}
	return env, fields, ""
}

type createEnvelope struct {
	Data struct {
		Transaction struct {
			TransactionNumber string        `json:"transaction_number"`
			PartnerTrxID      string        `json:"partner_trx_id"`
			Amount            record.Amount `json:"amount"`
		} `json:"transaction"`
	} `json:"data"`
}

// created is what contract.CheckCreated judges of a created payment's
// answer with envelope env.
func (ce *createEnvelope) created(env contract.Envelope) contract.Created {
	tx := &ce.Data.Transaction
	return contract.Created{Status: env.Status, Message: env.Message, TransactionNumber: tx.TransactionNumber,
		PartnerTrxID: tx.PartnerTrxID, Amount: tx.Amount}
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
}

// checkResponse verifies one response of op against the contract: a
// documented status code, the envelope, and for a created payment the
// contract's judgement of it (contract.CheckCreated: status and message,
// the transaction's number and echoed id, the amount arithmetic); for a 409
// the exact message.
func checkResponse(codes map[string]map[int]bool, op string, code int, body []byte, trxID string) (checked, *createEnvelope) {
	if !codes[op][code] {
		env, _, _ := checkEnvelope(body)
		return checked{env: env, violation: fmt.Sprintf("%s: HTTP %d is not documented for this operation", op, code)}, nil
	}
	if op == record.OpCreate && code == 200 {
		if f, ok := createdFast(body, trxID); ok {
			ce := &createEnvelope{}
			ce.Data.Transaction.TransactionNumber = f.number
			ce.Data.Transaction.PartnerTrxID = trxID
			ce.Data.Transaction.Amount = f.amount
			return checked{env: contract.Envelope{Status: true, Message: MsgCreated}}, ce
		}
	}
	return checkFully(op, code, body, trxID)
}

// checkFully is checkResponse's slow path, for a documented code: every
// answer the fast path (createdFast, below) does not vouch for.
func checkFully(op string, code int, body []byte, trxID string) (checked, *createEnvelope) {
	env, fields, bad := checkEnvelope(body)
	if bad != "" {
		return checked{violation: fmt.Sprintf("%s: HTTP %d: %s", op, code, bad)}, nil
	}
	c := checked{env: env}
	if op != record.OpCreate {
		return c, nil
	}
	switch code {
	case 200:
		var ce createEnvelope
		if err := contract.Unmarshal(fields["data"], &ce.Data); err != nil {
			c.violation = "create: HTTP 200 body does not decode: " + err.Error()
			return c, nil
		}
		if err := contract.CheckCreated(ce.created(env), trxID, contract.UnknownFee); err != nil {
			c.violation = "create: " + contract.RuleOf(err) // one rule per key of the tally, without the figures
		}
		return c, &ce
	case 409:
		if env.Message != MsgDuplicate {
			c.violation = "create: HTTP 409 message is not the duplicate partner_trx_id message"
		}
	}
	return c, nil
}

// The checks' fast path. Reading a created payment's answer with
// encoding/json (a map of the envelope's fields, then the data again into
// a struct) cost about 13 µs and 46 allocations per response, a tenth of
// the generator's CPU at its highest rate. createdFast reads the same
// answer in one pass without reflection, but only when it can prove the
// full checks (checkResponse's slow path) would find nothing: a valid JSON
// object, status true, the success message, the echoed partner_trx_id and
// amounts that add up, every key it relies on spelled exactly, once, and
// without escapes. Anything else, however harmless, goes to the slow path,
// which gives the verdict and its message: the fast path never decides a
// violation, so it can only make the checks lighter, never weaker
// (FuzzCreatedFast holds it to that).

// fastCreated is what the fast path read from a created payment's answer.
type fastCreated struct {
	number string // transaction.transaction_number
	amount record.Amount
}

// The keys a created answer holds once each, and those of its amount.
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

// amountFields are the amount's keys and their bits, in the order of
// createdFast's fields.
var amountFields = [...]struct {
	name string
	bit  uint16
}{{"total", kTotal}, {"balance_used", kBalance}, {"coin_used", kCoins}, {"coin_value_used", kCoinValue}, {"gateway_payment", kGateway}}

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
// trxID; ok is false when the slow path must decide. Its readers of the
// nested objects are closures over one pass's state: methods calling one
// another through jscan.members would move that state to the heap, an
// allocation per answer.
func createdFast(body []byte, trxID string) (fastCreated, bool) {
	s := jscan{b: body}
	var (
		out                   fastCreated
		seen                  keysSeen
		status, ok            bool
		message, echo, number []byte
	)
	once := seen.once
	dst := [len(amountFields)]*int64{&out.amount.Total, &out.amount.BalanceUsed, &out.amount.CoinUsed, &out.amount.CoinValueUsed, &out.amount.GatewayPayment}
	amount := func() bool {
		return s.members(true, func(key []byte) bool {
			for i, f := range amountFields {
				if string(key) == f.name {
					n, ok := s.int64()
					if !ok || !once(f.bit) {
						return false
					}
					*dst[i] = n
					return true
				}
				if foldEqual(key, f.name) {
					return false // the slow path matches it case-insensitively
				}
			}
			return s.skip()
		})
	}
	transaction := func() bool {
		return s.members(true, func(key []byte) bool {
			switch {
			case string(key) == "transaction_number":
				number, ok = s.plainString()
				return ok && once(kNumber)
			case string(key) == "partner_trx_id":
				echo, ok = s.plainString()
				return ok && once(kEcho)
			case string(key) == "amount":
				return once(kAmount) && amount()
			case foldEqual(key, "transaction_number"), foldEqual(key, "partner_trx_id"), foldEqual(key, "amount"):
				return false
			}
			return s.skip()
		})
	}
	data := func() bool {
		return s.members(true, func(key []byte) bool {
			switch {
			case string(key) == "transaction":
				return once(kTransaction) && transaction()
			case foldEqual(key, "transaction"):
				return false
			}
			return s.skip()
		})
	}
	top := s.members(false, func(key []byte) bool {
		switch string(key) {
		case "status":
			status, ok = s.boolean()
			return ok && once(kStatus)
		case "message":
			message, ok = s.plainString()
			return ok && once(kMessage)
		case "data":
			return once(kData) && data()
		}
		return s.skip()
	})
	s.space()
	const all = kStatus | kMessage | kData | kTransaction | kNumber | kEcho | kAmount
	// Equal as bytes, the message and the echo are the strings below.
	if !top || s.i != len(s.b) || uint16(seen)&all != all || string(message) != MsgCreated || string(echo) != trxID {
		return fastCreated{}, false
	}
	out.number = string(number)
	if contract.CheckCreated(contract.Created{Status: status, Message: MsgCreated, TransactionNumber: out.number, PartnerTrxID: trxID, Amount: out.amount},
		trxID, contract.UnknownFee) != nil {
		return fastCreated{}, false
	}
	return out, true
}

// jscan walks JSON, validating it as encoding/json does (RFC 8259; bytes
// outside ASCII are taken as they are): every method returns false on
// anything invalid, and the fast path then leaves the answer to the full
// checks.
type jscan struct {
	b     []byte
	i     int
	depth int
}

// maxDepth bounds the nesting the fast path follows (encoding/json's own
// limit is 10,000; deeper answers go to the full checks).
const maxDepth = 100

func (s *jscan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// peek is the next byte, 0 at the end.
func (s *jscan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// members walks an object, calling member with each key (the scanner then
// at the key's value, which member must consume). Keys with escapes, or,
// when strict (the slow path decodes into a struct, whose keys match
// case-insensitively under Unicode folding), with bytes outside ASCII,
// stop the walk: false.
func (s *jscan) members(strict bool, member func(key []byte) bool) bool {
	s.space()
	if s.peek() != '{' || s.depth >= maxDepth {
		return false
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	s.space()
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		key, plain, ok := s.str()
		if !ok || !plain || (strict && !ascii(key)) {
			return false
		}
		s.space()
		if s.peek() != ':' {
			return false
		}
		s.i++
		s.space()
		if !member(key) {
			return false
		}
		s.space()
		switch s.peek() {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string and returns its bytes between the quotes, and whether
// it has no escapes (its bytes are then its value, up to UTF-8 repair).
func (s *jscan) str() (raw []byte, plain, ok bool) {
	if s.peek() != '"' {
		return nil, false, false
	}
	start := s.i + 1
	plain = true
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], plain, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			plain = false
			j++
			if j >= len(s.b) {
				return nil, false, false
			}
			switch s.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.b) || !hex4(s.b[j+1:j+5]) {
					return nil, false, false
				}
				j += 4
			default:
				return nil, false, false
			}
		}
	}
	return nil, false, false
}

func hex4(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

// plainString reads a string value that decodes to its own bytes: no
// escapes, ASCII only (encoding/json replaces invalid UTF-8).
func (s *jscan) plainString() ([]byte, bool) {
	v, plain, ok := s.str()
	return v, ok && plain && ascii(v)
}

// literal reads word (true, false or null).
func (s *jscan) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// boolean reads true or false (not null).
func (s *jscan) boolean() (bool, bool) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, false
}

// int64 reads an integer literal that fits an int64 (no fraction, no
// exponent: encoding/json refuses those for an int64).
func (s *jscan) int64() (int64, bool) {
	neg := s.peek() == '-'
	if neg {
		s.i++
	}
	if s.peek() == '0' && s.i+1 < len(s.b) && '0' <= s.b[s.i+1] && s.b[s.i+1] <= '9' {
		return 0, false // a leading zero is not JSON
	}
	var n uint64
	digits := 0
	for ; s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9'; s.i++ {
		d := uint64(s.b[s.i] - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
		digits++
	}
	if digits == 0 || (s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E')) {
		return 0, false
	}
	switch {
	case !neg && n <= math.MaxInt64:
		return int64(n), true
	case neg && n <= math.MaxInt64+1:
		return int64(-n), true //nolint:gosec // -2^63 wraps to itself, as intended
	}
	return 0, false
}

// number reads any JSON number.
func (s *jscan) number() bool {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.peek() == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *jscan) digits() int {
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// skip reads one value of any kind.
func (s *jscan) skip() bool {
	switch s.peek() {
	case '{':
		return s.members(false, func([]byte) bool { return s.skip() })
	case '[':
		return s.elements()
	case '"':
		_, _, ok := s.str()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return s.number()
}

// elements reads an array.
func (s *jscan) elements() bool {
	if s.depth >= maxDepth {
		return false
	}
	s.i++ // '['
	s.depth++
	defer func() { s.depth-- }()
	s.space()
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		s.space()
		if !s.skip() {
			return false
		}
		s.space()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// foldEqual reports whether ASCII key equals name ignoring case.
func foldEqual(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := range key {
		a, b := key[i], name[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
