package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/partnercommerce/conformance/reference"
)

// wireResponse is a buffered response a wire fault may rewrite.
type wireResponse struct {
	op     string
	group  reference.Group
	status int
	header http.Header
	body   []byte
}

// wireFaults rewrites the response for each wire fault: a fault that only
// changes what goes over the wire, so the domain never hears of it (see
// reference.Fault for how to add one). TestEveryFaultIsWired checks that
// every fault is either a rule fault or in this table.
var wireFaults = map[reference.Fault]func(*wireResponse){
	reference.FaultMessageTypo: func(r *wireResponse) {
		if r.op == opCreatePayment && r.status == http.StatusOK {
			r.body = bytes.Replace(r.body, []byte(`"Pembayaran berhasil diproses."`), []byte(`"Pembayaran berhasil diproses"`), 1)
		}
	},
	reference.FaultProvisionCreatedAs200: func(r *wireResponse) {
		if r.op == opProvisionAccount && r.status == http.StatusCreated {
			r.status = http.StatusOK
		}
	},
	reference.FaultProductWithoutLogo: func(r *wireResponse) {
		if (r.op == opListProducts || r.op == opSyncProducts) && r.status == http.StatusOK {
			r.editJSON(func(body map[string]any) {
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
	},
	reference.FaultCustomerIDAsString: func(r *wireResponse) {
		if r.op == opGetCustomerProfile && r.status == http.StatusOK {
			r.editJSON(func(body map[string]any) {
				data, _ := body["data"].(map[string]any)
				if c, ok := data["customer"].(map[string]any); ok {
					if id, ok := c["id"].(json.Number); ok {
						c["id"] = id.String()
					}
				}
			})
		}
	},
	reference.FaultProductTokenMessage: func(r *wireResponse) {
		if r.group == reference.GroupProducts && r.status == http.StatusUnauthorized {
			r.body = bytes.Replace(r.body, []byte(`"Token tidak valid atau sudah kedaluwarsa."`), []byte(`"Token tidak valid."`), 1)
		}
	},
	reference.FaultInternalMethodMisnamed: func(r *wireResponse) {
		if r.op == opCreatePayment && r.status == http.StatusOK {
			r.editJSON(func(body map[string]any) {
				data, _ := body["data"].(map[string]any)
				if m, ok := data["payment_method"].(map[string]any); ok && m["code"] == "BALANCE" {
					m["code"], m["gateway"], m["type"] = "WALLET", "INTERNAL", "BALANCE"
				}
			})
		}
	},
	reference.FaultJSONLabelledText: func(r *wireResponse) {
		if r.op == opListPaymentMethods && r.status == http.StatusOK {
			r.header.Set("Content-Type", "text/plain; charset=utf-8")
		}
	},
	reference.FaultThrottledButProcessed: func(r *wireResponse) {
		if r.op == opCreatePayment && r.status == http.StatusOK {
			r.status = http.StatusTooManyRequests
			r.header.Set("Retry-After", "0")
			r.body = []byte(`{"status":false,"message":"` + MsgRateLimited + `"}` + "\n")
		}
	},
	reference.FaultErrorsAsText: func(r *wireResponse) {
		var eb struct {
			Status  *bool  `json:"status"`
			Message string `json:"message"`
		}
		if json.Unmarshal(r.body, &eb) != nil || eb.Status == nil || *eb.Status {
			return
		}
		r.header.Set("Content-Type", "text/plain; charset=utf-8")
		r.body = []byte(eb.Message + "\n")
	},
}

// editJSON decodes the body (numbers kept as written), lets edit change it
// and encodes it again.
func (r *wireResponse) editJSON(edit func(map[string]any)) {
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	var body map[string]any
	if dec.Decode(&body) != nil {
		return
	}
	edit(body)
	if b, err := json.Marshal(body); err == nil {
		r.body = append(b, '\n')
	}
}

// withWireFaults wraps next in a response-rewriting middleware for the wire
// faults among faults; without any it returns next unchanged.
func withWireFaults(next http.Handler, table map[string]map[string]route, faults []reference.Fault) http.Handler {
	var rewrites []func(*wireResponse)
	for _, f := range reference.AllFaults() { // declaration order, whatever the order given
		for _, g := range faults {
			if g == f && wireFaults[f] != nil {
				rewrites = append(rewrites, wireFaults[f])
				break
			}
		}
	}
	if len(rewrites) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &bufferedWriter{header: http.Header{}}
		next.ServeHTTP(rec, r)
		rt := table[r.URL.Path][r.Method]
		resp := &wireResponse{op: rt.op, group: rt.access.Group, status: rec.status, header: rec.header, body: rec.body.Bytes()}
		if resp.status == 0 {
			resp.status = http.StatusOK
		}
		for _, rw := range rewrites {
			rw(resp)
		}
		for k, v := range resp.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(resp.body)))
		w.WriteHeader(resp.status)
		_, _ = w.Write(resp.body)
	})
}

// requestFaults refuse, before the domain sees it, a request the document
// allows: a wire fault of a server's request parsing. Each reports whether
// the body of an operation is refused.
var requestFaults = map[reference.Fault]func(op string, body []byte) bool{
	reference.FaultNullOptionalRefused: func(op string, body []byte) bool {
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
	},
}

// hasRequestFaults reports whether faults hold a request fault.
func hasRequestFaults(faults []reference.Fault) bool {
	for _, f := range faults {
		if requestFaults[f] != nil {
			return true
		}
	}
	return false
}

// withRequestFaults wraps next in a middleware that refuses the requests
// the request faults among faults refuse; without any it returns next.
func withRequestFaults(next http.Handler, table map[string]map[string]route, faults []reference.Fault) http.Handler {
	var refusals []func(string, []byte) bool
	for _, f := range faults {
		if rf := requestFaults[f]; rf != nil {
			refusals = append(refusals, rf)
		}
	}
	if len(refusals) == 0 {
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
		for _, refused := range refusals {
			if refused(op, body) {
				writeError(w, errMalformedRequest.status, errMalformedRequest.message)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// bufferedWriter holds a whole response for the wire faults.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }

func (b *bufferedWriter) started() bool { return b.status != 0 }

func (b *bufferedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
