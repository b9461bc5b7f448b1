package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"

	"github.com/partnercommerce/conformance/reference"
)

// wireAnswer is an answer a wire fault may rewrite, with the operation it
// answers.
type wireAnswer struct {
	op    string
	group reference.Group
	*Answer
}

// wireFault is how this package serves a fault of the wire or request
// layer (reference.LayerWire, reference.LayerRequest): a rewrite of the
// answer, or a refusal of a request the document allows (whether the body
// of an operation is refused). The domain never hears of either (see
// reference.Fault for how to add one); TestEveryFaultIsWired checks that
// every fault of those layers is here, with the change its layer makes.
type wireFault struct {
	rewrite func(*wireAnswer)
	refuse  func(op string, body []byte) bool
}

// wireFaults serves each wire and request fault.
var wireFaults = map[reference.Fault]wireFault{
	reference.FaultMessageTypo: {rewrite: func(r *wireAnswer) {
		if r.op == opCreatePayment && r.Status == http.StatusOK {
			r.Body = bytes.Replace(r.Body, []byte(`"Pembayaran berhasil diproses."`), []byte(`"Pembayaran berhasil diproses"`), 1)
		}
	}},
	reference.FaultProvisionCreatedAs200: {rewrite: func(r *wireAnswer) {
		if r.op == opProvisionAccount && r.Status == http.StatusCreated {
			r.Status = http.StatusOK
		}
	}},
	reference.FaultProductWithoutLogo: {rewrite: func(r *wireAnswer) {
		if (r.op == opListProducts || r.op == opSyncProducts) && r.Status == http.StatusOK {
			r.EditJSON(func(body map[string]any) {
				data, _ := body["data"].(map[string]any)
				products, _ := data["products"].([]any)
				for _, p := range products {
					if p, ok := p.(map[string]any); ok {
						if op, ok := p["operator"].(map[string]any); ok {
							delete(op, "logo")
						}
					}
				}
			})
		}
	}},
	reference.FaultCustomerIDAsString: {rewrite: func(r *wireAnswer) {
		if r.op == opGetCustomerProfile && r.Status == http.StatusOK {
			r.EditJSON(func(body map[string]any) {
				data, _ := body["data"].(map[string]any)
				if c, ok := data["customer"].(map[string]any); ok {
					if id, ok := c["id"].(json.Number); ok {
						c["id"] = id.String()
					}
				}
			})
		}
	}},
	reference.FaultProductTokenMessage: {rewrite: func(r *wireAnswer) {
		if r.group == reference.GroupProducts && r.Status == http.StatusUnauthorized {
			r.Body = bytes.Replace(r.Body, []byte(`"Token tidak valid atau sudah kedaluwarsa."`), []byte(`"Token tidak valid."`), 1)
		}
	}},
	reference.FaultInternalMethodMisnamed: {rewrite: func(r *wireAnswer) {
		if r.op == opCreatePayment && r.Status == http.StatusOK {
			r.EditJSON(func(body map[string]any) {
				data, _ := body["data"].(map[string]any)
				if m, ok := data["payment_method"].(map[string]any); ok && m["code"] == "BALANCE" {
					m["code"], m["gateway"], m["type"] = "WALLET", "INTERNAL", "BALANCE"
				}
			})
		}
	}},
	reference.FaultJSONLabelledText: {rewrite: func(r *wireAnswer) {
		if r.op == opListPaymentMethods && r.Status == http.StatusOK {
			r.Header.Set("Content-Type", "text/plain; charset=utf-8")
		}
	}},
	reference.FaultThrottledButProcessed: {rewrite: func(r *wireAnswer) {
		if r.op == opCreatePayment && r.Status == http.StatusOK {
			r.Status = http.StatusTooManyRequests
			r.Header.Set("Retry-After", "0")
			r.Body = []byte(`{"status":false,"message":"` + MsgRateLimited + `"}` + "\n")
		}
	}},
	reference.FaultErrorsAsText: {rewrite: func(r *wireAnswer) {
		var eb struct {
			Status  *bool  `json:"status"`
			Message string `json:"message"`
		}
		if json.Unmarshal(r.Body, &eb) != nil || eb.Status == nil || *eb.Status {
			return
		}
		r.Header.Set("Content-Type", "text/plain; charset=utf-8")
		r.Body = []byte(eb.Message + "\n")
	}},
	reference.FaultNullOptionalRefused: {refuse: func(op string, body []byte) bool {
		var fields map[string]json.RawMessage
		if op != opCreatePayment || json.Unmarshal(body, &fields) != nil {
			return false
		}
		for _, k := range []string{"promotion_id", "parts", "shift_code"} {
			if string(fields[k]) == "null" {
				return true
			}
		}
		return false
	}},
}

// withWireFaults wraps next in an answer-rewriting middleware for the wire
// faults among faults, in declaration order whatever the order given;
// without any it returns next unchanged.
func withWireFaults(next http.Handler, table map[string]map[string]route, faults []reference.Fault) http.Handler {
	var rewrites []func(*wireAnswer)
	for _, f := range reference.AllFaults() {
		if rw := wireFaults[f].rewrite; rw != nil && slices.Contains(faults, f) {
			rewrites = append(rewrites, rw)
		}
	}
	if len(rewrites) == 0 {
		return next
	}
	return Rewrite(next, func(r *http.Request, a *Answer) {
		rt := table[r.URL.Path][r.Method]
		wa := &wireAnswer{op: rt.op, group: rt.access.Group, Answer: a}
		for _, rw := range rewrites {
			rw(wa)
		}
	})
}

// refusals returns the refusals of the request faults among faults.
func refusals(faults []reference.Fault) []func(string, []byte) bool {
	var out []func(string, []byte) bool
	for _, f := range faults {
		if rf := wireFaults[f].refuse; rf != nil {
			out = append(out, rf)
		}
	}
	return out
}

// withRequestFaults wraps next in a middleware that refuses the requests
// the request faults among faults refuse; without any it returns next.
func withRequestFaults(next http.Handler, table map[string]map[string]route, faults []reference.Fault) http.Handler {
	refused := refusals(faults)
	if len(refused) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		if err != nil {
			writeError(w, http.StatusBadRequest, errMalformedRequest.message)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		op := table[r.URL.Path][r.Method].op
		for _, refuses := range refused {
			if refuses(op, body) {
				writeError(w, errMalformedRequest.status, errMalformedRequest.message)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
