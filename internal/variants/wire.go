package variants

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/partnercommerce/conformance/internal/contract"
)

// rewriteJSON serves every request with next and lets edit change the
// status and the decoded JSON body of the answer (numbers kept exact).
func rewriteJSON(next http.Handler, edit func(r *http.Request, reqBody []byte, status *int, body map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqBody, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		status := rec.Code
		body, ok := decodeObject(rec.Body.Bytes())
		if !ok {
			copyAnswer(w, rec.Result().Header, status, rec.Body.Bytes())
			return
		}
		edit(r, reqBody, &status, body)
		out, err := json.Marshal(body)
		if err != nil {
			// A body decoded with UseNumber always marshals again.
			out = rec.Body.Bytes()
		}
		copyAnswer(w, rec.Result().Header, status, out)
	})
}

// before decodes a request's JSON body (if any) and lets intercept answer
// the request instead of next.
func before(next http.Handler, intercept func(w http.ResponseWriter, r *http.Request, body map[string]any) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		body, _ := decodeObject(raw)
		if intercept(w, r, body) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// decodeObject decodes a JSON object with its numbers kept exact.
func decodeObject(raw []byte) (map[string]any, bool) {
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&body) != nil || body == nil {
		return nil, false
	}
	return body, true
}

func copyAnswer(w http.ResponseWriter, h http.Header, status int, body []byte) {
	for k, vs := range h {
		if k == "Content-Length" {
			continue
		}
		w.Header()[k] = vs
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeEnvelope answers with the contract's failure shape.
func writeEnvelope(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"status": false, "message": msg})
}

// integer reads a JSON number of a decoded body as an int64 (the judges'
// reading of JSON numbers: a helper, not a rule of the document).
var integer = contract.Int64
