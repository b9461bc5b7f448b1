package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/partnercommerce/conformance/reference"
)

// paymentFast serves the common create-payment request without the
// generated strict server's reflection: one read of the body into a pooled
// buffer, one pass over it (decodePaymentBody), the same handler method as
// the strict server (handlers.createPayment), and the 200 answer written
// by hand (appendPaymentAnswer). A request it does not take goes on to the
// general path, which reads the same bytes and answers as it always has.
//
// The gate installs it only when no request fault is: those refuse bodies
// in front of the strict server, where this road does not pass.
type paymentFast struct {
	h    *handlers
	errs *errorWriter
}

// fastBodyMax is the largest body the fast path reads; a larger one (the
// common body is about 150 bytes) takes the general path.
const fastBodyMax = 4 << 10

// fastContentTypes are the request Content-Types (none, or the usual
// spellings of JSON) that readStrictBody would accept without a doubt; any
// other is left to it.
var fastContentTypes = map[string]bool{
	"": true, "application/json": true,
	"application/json; charset=utf-8": true, "application/json;charset=utf-8": true,
	"application/json; charset=UTF-8": true, "application/json;charset=UTF-8": true,
}

// jsonContentType is the Content-Type of every answer; the header map
// holds this slice, which nothing appends to or edits in place.
var jsonContentType = []string{"application/json"}

// bufferPool holds the buffers that carry a body in and the answer out.
var bufferPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// serve answers the request and reports true, or reports false and returns
// what the general path must read as the body instead of r.Body (nil when
// serve read nothing). buf is the caller's pooled buffer.
func (p *paymentFast) serve(w http.ResponseWriter, r *http.Request, caller reference.Caller, buf *[]byte) (body io.Reader, done bool) {
	n := int(r.ContentLength)
	if r.Body == nil || n <= 0 || n > fastBodyMax {
		return nil, false
	}
	if !fastContentTypes[r.Header.Get("Content-Type")] {
		return nil, false // readStrictBody parses it, before any read
	}
	b, readErr := readUpTo(r.Body, (*buf)[:0], n+1)
	*buf = b
	if readErr != nil || len(b) != n {
		// A body that broke off or is not the announced length: the
		// general path reads the same bytes, then the rest or the error.
		rest := r.Body
		if readErr != nil {
			rest = io.NopCloser(errReader{readErr})
		}
		return io.MultiReader(bytes.NewReader(b), rest), false
	}
	var pb paymentBody
	if !decodePaymentBody(b, &pb) {
		return bytes.NewReader(b), false
	}
	resp, err := p.h.createPayment(caller, &pb.req)
	if err != nil {
		p.errs.responseError(w, r, err)
		return nil, true
	}
	out := appendPaymentAnswer(b[:0], &resp)
	*buf = out
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(out); err != nil {
		p.errs.responseError(w, r, err)
	}
	return nil, true
}

// readUpTo appends what r yields to b until EOF, an error, or max bytes;
// io.EOF is not an error.
func readUpTo(r io.Reader, b []byte, maxLen int) ([]byte, error) {
	b = growTo(b, maxLen)
	for len(b) < maxLen {
		k, err := r.Read(b[len(b):maxLen])
		b = b[:len(b)+k]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// growTo returns b with room for n bytes.
func growTo(b []byte, n int) []byte {
	if cap(b) >= n {
		return b
	}
	return make([]byte, len(b), n)
}

// errReader returns its error on every read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// getBuffer takes a buffer from the pool; putBuffer gives it back unless
// it grew past what the pool keeps.
func getBuffer() *[]byte { return bufferPool.Get().(*[]byte) }

func putBuffer(b *[]byte) {
	if cap(*b) <= 2*fastBodyMax {
		*b = (*b)[:0]
		bufferPool.Put(b)
	}
}
