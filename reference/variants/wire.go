package variants

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// rewriteJSON serves every request with next and lets edit change the
// status and the decoded JSON body of the answer (numbers kept exact); an
// answer edit changed is marked changed.
func rewriteJSON(next http.Handler, edit func(r *http.Request, reqBody []byte, status *int, body map[string]any)) http.Handler {
	return editJSON(next, true, edit)
}

// watchJSON is rewriteJSON for an edit that only undoes what the double's
// own data set changed (so the answer is the reference's again): the edit
// marks the answers that differ from the reference's itself (changed).
func watchJSON(next http.Handler, edit func(r *http.Request, reqBody []byte, status *int, body map[string]any)) http.Handler {
	return editJSON(next, false, edit)
}

func editJSON(next http.Handler, count bool, edit func(r *http.Request, reqBody []byte, status *int, body map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqBody, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
		httpapi.Rewrite(next, func(r *http.Request, a *httpapi.Answer) {
			status := a.Status
			var was []byte
			edited := a.EditJSON(func(body map[string]any) {
				if count {
					was, _ = json.Marshal(body) // before edit changes it in place
				}
				edit(r, reqBody, &a.Status, body)
			})
			if count && edited && (a.Status != status || !bytes.Equal(was, bytes.TrimSuffix(a.Body, []byte("\n")))) {
				changed(r)
			}
		}).ServeHTTP(w, r)
	})
}

// before decodes a request's JSON body (if any) and lets intercept answer
// the request instead of next; intercept marks an answer that differs from
// the reference's (changed), or answers with refuseInstead.
func before(next http.Handler, intercept func(w http.ResponseWriter, r *http.Request, body map[string]any) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		body, _ := httpapi.DecodeObject(raw)
		if intercept(w, r, body) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuseInstead answers r, which the reference refuses too (so asking it
// changes nothing), with status and msg, and marks the answer changed when
// the reference's refusal differs.
func refuseInstead(w http.ResponseWriter, r *http.Request, next http.Handler, status int, msg string) {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	if env, _, err := contract.Decode(rec.Body.Bytes()); err != nil || rec.Code != status || env.Message != msg {
		changed(r)
	}
	writeEnvelope(w, status, msg)
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
