package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// Answer is a whole answer held back to be rewritten (Rewrite): its status,
// header and body as the handler wrote them.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Rewrite serves each request with next, holds its answer whole and lets
// rewrite change it before it is sent, with the Content-Length of its new
// body. The reference's wire faults and the test doubles rewrite answers
// through it.
func Rewrite(next http.Handler, rewrite func(r *http.Request, a *Answer)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &bufferedWriter{header: http.Header{}}
		next.ServeHTTP(rec, r)
		a := &Answer{Status: rec.status, Header: rec.header, Body: rec.body.Bytes()}
		if a.Status == 0 {
			a.Status = http.StatusOK
		}
		rewrite(r, a)
		for k, v := range a.Header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(a.Body)))
		w.WriteHeader(a.Status)
		_, _ = w.Write(a.Body)
	})
}

// EditJSON decodes the body as a JSON object (numbers kept as written),
// lets edit change it and encodes it again. It reports false, and changes
// nothing, when the body is not a JSON object.
func (a *Answer) EditJSON(edit func(body map[string]any)) bool {
	body, ok := DecodeObject(a.Body)
	if !ok {
		return false
	}
	edit(body)
	if b, err := json.Marshal(body); err == nil { // a body decoded with UseNumber always encodes again
		a.Body = append(b, '\n')
	}
	return true
}

// DecodeObject decodes a JSON object with its numbers kept as written.
func DecodeObject(raw []byte) (map[string]any, bool) {
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&body) != nil || body == nil {
		return nil, false
	}
	return body, true
}

// bufferedWriter holds a whole answer for Rewrite.
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
