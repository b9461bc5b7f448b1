package loadtest

import (
	"encoding/json"
	"fmt"

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

type statusEnvelope struct {
	Message string `json:"message"`
	Data    struct {
		PartnerTrxID      string        `json:"partner_trx_id"`
		TransactionNumber string        `json:"transaction_number"`
		Amount            record.Amount `json:"amount"`
	} `json:"data"`
}

// checked is the verdict on one response.
type checked struct {
	env       contract.Envelope
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
// answer the fast path (fastcheck.go) does not vouch for.
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
		switch {
		case !env.Status:
			c.violation = "create: HTTP 200 with status false"
		case env.Message != MsgCreated:
			c.violation = "create: HTTP 200 message is not \"" + MsgCreated + "\""
		case ce.Data.Transaction.PartnerTrxID != trxID:
			c.violation = "create: transaction.partner_trx_id does not echo the request"
		default:
			if err := contract.CheckAmount(ce.Data.Transaction.Amount); err != nil {
				c.violation = "create: " + err.Error()
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
