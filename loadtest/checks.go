package loadtest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/partnercommerce/conformance/internal/envelope"

	"github.com/partnercommerce/conformance/api"
)

// The operations the load tester sends, named after what they do.
const (
	OpCreate    = "create"
	OpStatus    = "status"
	OpList      = "list"
	OpSync      = "sync"
	OpProfile   = "profile"
	OpMethods   = "methods"
	OpProvision = "provision"
)

// operationIDs maps each op to its method and path in openapi.yaml.
var operationIDs = map[string]string{
	OpCreate:    "POST " + pathPayment,
	OpStatus:    "GET " + pathStatus,
	OpList:      "GET " + pathList,
	OpSync:      "GET " + pathSync,
	OpProfile:   "GET " + pathProfile,
	OpMethods:   "GET " + pathMethods,
	OpProvision: "POST " + pathProv,
}

// Contract messages the checks compare exactly.
const (
	MsgCreated   = "Pembayaran berhasil diproses."
	MsgDuplicate = "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik."
)

var (
	documentedOnce  sync.Once
	documentedCodes map[string]map[int]bool
	documentedErr   error
)

// DocumentedCodes returns, per op, the HTTP status codes openapi.yaml lists
// for it (the `default` response is not a documented code).
func DocumentedCodes() (map[string]map[int]bool, error) {
	documentedOnce.Do(func() {
		spec, err := api.GetSpec()
		if err != nil {
			documentedErr = fmt.Errorf("openapi: %w", err)
			return
		}
		byID := map[string]map[int]bool{}
		for path, item := range spec.Paths.Map() {
			for method, op := range item.Operations() {
				codes := map[int]bool{}
				for k := range op.Responses.Map() {
					if c, err := strconv.Atoi(k); err == nil {
						codes[c] = true
					}
				}
				byID[method+" "+path] = codes
			}
		}
		out := map[string]map[int]bool{}
		for op, id := range operationIDs {
			if byID[id] == nil {
				documentedErr = fmt.Errorf("openapi: no operation %s", id)
				return
			}
			out[op] = byID[id]
		}
		documentedCodes = out
	})
	return documentedCodes, documentedErr
}

// Amount is the amount object of a payment (document §2.7), in integers.
type Amount = api.Amount

// checkEnvelope verifies what every body carries (internal/envelope, the
// same reader as the conformance suite's) and returns the body's fields.
func checkEnvelope(body []byte) (envelope.Envelope, map[string]json.RawMessage, string) {
	env, fields, err := envelope.Decode(body)
	if err != nil {
		return envelope.Envelope{}, nil, err.Error()
	}
	return env, fields, ""
}

type createEnvelope struct {
	Data struct {
		Transaction struct {
			TransactionNumber string `json:"transaction_number"`
			PartnerTrxID      string `json:"partner_trx_id"`
			Amount            Amount `json:"amount"`
		} `json:"transaction"`
	} `json:"data"`
}

type statusEnvelope struct {
	Data struct {
		PartnerTrxID      string `json:"partner_trx_id"`
		TransactionNumber string `json:"transaction_number"`
		Amount            Amount `json:"amount"`
	} `json:"data"`
}

// checkAmount verifies the arithmetic of an amount object: the parts add up
// to the total, two coins are one rupiah, nothing is negative.
func checkAmount(a Amount) string {
	switch {
	case a.Total < 0 || a.BalanceUsed < 0 || a.CoinUsed < 0 || a.CoinValueUsed < 0 || a.GatewayPayment < 0:
		return "amount has a negative part"
	case a.BalanceUsed+a.CoinValueUsed+a.GatewayPayment != a.Total:
		return "amount parts do not add up to total"
	case a.CoinUsed != 2*a.CoinValueUsed:
		return "coin_used is not twice coin_value_used"
	}
	return ""
}

// checked is the verdict on one response.
type checked struct {
	env       envelope.Envelope
	violation string // the contract rule the response broke; "" if none
}

// checkResponse verifies one response of op against the contract: a
// documented status code, the envelope, and for a created payment the
// success message, the echoed id and the amount arithmetic; for a 409 the
// exact message.
func checkResponse(codes map[string]map[int]bool, op string, code int, body []byte, trxID string) (checked, *createEnvelope) {
	if !codes[op][code] {
		env, _, _ := checkEnvelope(body)
		return checked{env: env, violation: fmt.Sprintf("%s: HTTP %d is not documented for this operation", op, code)}, nil
	}
	env, fields, bad := checkEnvelope(body)
	if bad != "" {
		return checked{violation: fmt.Sprintf("%s: HTTP %d: %s", op, code, bad)}, nil
	}
	c := checked{env: env}
	if op != OpCreate {
		return c, nil
	}
	switch code {
	case 200:
		var ce createEnvelope
		if err := envelope.Unmarshal(fields["data"], &ce.Data); err != nil {
			c.violation = "create: HTTP 200 body does not decode: " + err.Error()
			return c, nil
		}
		switch {
		case !env.Status:
			c.violation = "create: HTTP 200 with status false"
		case env.Message != MsgCreated:
			c.violation = "create: HTTP 200 message is not \"" + MsgCreated + "\""
		case ce.Data.Transaction.PartnerTrxID != trxID:
			c.violation = "create: transaction.partner_trx_id does not echo the request"
		default:
			c.violation = checkAmount(ce.Data.Transaction.Amount)
			if c.violation != "" {
				c.violation = "create: " + c.violation
			}
		}
		return c, &ce
	case 409:
		if env.Message != MsgDuplicate {
			c.violation = "create: HTTP 409 message is not the duplicate partner_trx_id message"
		}
	}
	return c, nil
}
