package loadtest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/profiles"
)

// idleConns is how many idle connections a client without a connection cap
// keeps for reuse: vegeta's default, so that connections opened at a high
// rate are reused rather than closed and opened again.
const idleConns = 10000

// maxBodyBytes bounds every response body the load tester reads.
const maxBodyBytes = 1 << 20

// client talks to the server under test: where it is, its credentials, and
// the HTTP client the run uses. It is built from a target profile. (It is
// not a vegeta.Target, which is one request.)
type client struct {
	base      string
	secretKey string
	mainAuth  string // Authorization header of the main partner account
	tr        *http.Transport
	timeout   time.Duration
	createURL string   // of payment creation, built once
	createU   *url.URL // createURL parsed, shared read-only by every creation
	mu        sync.RWMutex
	headers   map[headerKey]http.Header // shared read-only (see header)
	extra     http.Header               // the headers of -H, on every request
	// gate holds off the requests made outside the attack (doTimed) when
	// the target throttles them, and paces them under its limit.
	gate *throttle.Gate
}

type headerKey struct {
	auth     string
	withBody bool
}

// newClient returns a client for profile p with a client capped at maxConns
// connections (0: no cap; up to idleConns of them are kept for reuse),
// reaching the target as conn says (its TLS, the headers of -H).
func newClient(p *profiles.Profile, maxConns int, timeout time.Duration, conn transport.Options) (*client, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	tlsConfig, err := conn.TLSConfig()
	if err != nil {
		return nil, err
	}
	// Each request's own deadline bounds its dial and handshake: --timeout
	// for the run's, at least preflightTimeout for the preflight's, which
	// opens the run's first connection.
	connect := max(timeout, preflightTimeout)
	tr := &http.Transport{
		Proxy:               nil, // load is sent to the target, never through a proxy
		DialContext:         (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext,
		MaxConnsPerHost:     maxConns,
		MaxIdleConns:        cmp.Or(maxConns, idleConns),
		MaxIdleConnsPerHost: cmp.Or(maxConns, idleConns),
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		TLSHandshakeTimeout: connect,
		TLSClientConfig:     tlsConfig,
	}
	base := strings.TrimRight(p.BaseURL, "/")
	req, err := api.NewCreatePaymentRequestWithBody(base, "application/json", nil)
	if err != nil {
		return nil, fmt.Errorf("target %q: %w", base, err)
	}
	return &client{
		createURL: req.URL.String(),
		createU:   req.URL,
		base:      base,
		secretKey: p.SecretKey,
		mainAuth:  bearer(p.MainToken),
		tr:        tr,
		timeout:   timeout,
		gate:      throttle.New(throttle.Options{}),
		extra:     conn.Headers,
	}, nil
}

// bearer returns the Authorization header value of token; "" (no header)
// for no token.
func bearer(token string) string {
	if token == "" {
		return ""
	}
	return "Bearer " + token
}

// close releases the target's idle connections.
func (cl *client) close() { cl.tr.CloseIdleConnections() }

// call is one HTTP request of the run, before it is sent. Its method and
// URL come from the generated client's request builders (requests.go), so
// that paths and query encoding follow openapi.yaml.
type call struct {
	op     string
	method string
	url    string
	auth   string // Authorization header value; empty for provision
	body   []byte
	err    error // the request could not be built
}

// response is what came back for a call.
type response struct {
	code        int
	contentType string
	body        []byte
	bytes       uint64
	// err is a transport error or a timeout (no answer, or an answer cut
	// off), or errTooLarge (an answer too long to read).
	err error
	// throttled is a throttled answer (contract.Throttled: a 429, or a 503
	// with Retry-After), whose Retry-After is retryAfter ("" when absent).
	throttled  bool
	retryAfter string
	// gateway is set when a gateway in front of the target answered
	// instead of the API (contract.GatewayAnswer); server is the answer's
	// Server header.
	gateway *contract.Gateway
	server  string
	buf     *[]byte // body's pooled buffer; see release
}

// bodies are the buffers responses are read into: a response's body is
// only read by the checks, so its buffer is reused once they are done.
var bodies = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// release returns r's buffer for reuse; r.body must not be used after.
func (r *response) release() {
	if r.buf != nil && cap(r.body) <= 64<<10 {
		*r.buf = r.body[:0]
		bodies.Put(r.buf)
	}
	r.buf, r.body = nil, nil
}

// header returns the headers of a request with Authorization auth (none
// when empty) and, withBody, a JSON Content-Type. They are built once per
// account and shared by its requests: an http.RoundTripper does not modify
// a request's headers, and nothing else touches them.
func (cl *client) header(auth string, withBody bool) http.Header {
	key := headerKey{auth, withBody}
	cl.mu.RLock()
	h, ok := cl.headers[key]
	cl.mu.RUnlock()
	if ok {
		return h
	}
	h = http.Header{}
	h.Set("X-SECRET-KEY", cl.secretKey)
	if auth != "" {
		h.Set("Authorization", auth)
	}
	if withBody {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Accept", "application/json")
	for name, values := range cl.extra { // -H replaces what the request had under its name
		h[name] = values
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if old, ok := cl.headers[key]; ok {
		return old
	}
	if cl.headers == nil {
		cl.headers = map[headerKey]http.Header{}
	}
	cl.headers[key] = h
	return h
}

// do sends c under ctx and reads the whole (bounded) body.
func (cl *client) do(ctx context.Context, c call) response {
	if c.err != nil {
		return response{err: c.err}
	}
	// The request goes straight to the transport: http.Client would copy
	// its headers for redirects, which the load tester does not follow (a
	// 3xx is an answer like any other), and wrap its errors as below.
	u := cl.createU
	if c.url != cl.createURL || u == nil {
		var err error
		if u, err = url.Parse(c.url); err != nil {
			return response{err: err}
		}
	}
	req := &http.Request{Method: c.method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: cl.header(c.auth, c.body != nil), Host: u.Host}
	if c.body != nil {
		// A NopCloser around a bytes.Reader, which net/http knows to be in
		// memory: headers and body go out in one write.
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(c.body)), int64(len(c.body))
	}
	resp, err := cl.tr.RoundTrip(req.WithContext(ctx))
	if err == nil {
		resp, err = transport.Decoded(resp) // gzip, when -H asked for it
	}
	if err != nil {
		return response{err: &url.Error{Op: urlErrorOp(c.method), URL: c.url, Err: err}}
	}
	defer resp.Body.Close()
	buf := bodies.Get().(*[]byte)
	b, err := readBody(resp.Body, (*buf)[:0])
	out := response{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: b, bytes: uint64(len(b)), buf: buf, err: err}
	switch {
	case contract.Throttled(resp.StatusCode, resp.Header):
		out.throttled, out.retryAfter = true, resp.Header.Get("Retry-After")
	case err == nil:
		if g, ok := contract.GatewayAnswer(resp.StatusCode, resp.Header, b); ok {
			out.gateway, out.server = &g, g.Server
		}
	}
	if err == nil && len(b) > maxBodyBytes {
		out.body, out.err = b[:maxBodyBytes], record.ErrTooLarge
	}
	return out
}

// urlErrorOp is the Op of the *url.Error http.Client returns for method:
// "Post" for POST, "Get" for GET (an empty method is GET).
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}

// readBody appends r to buf, up to one byte past maxBodyBytes.
func readBody(r io.Reader, buf []byte) ([]byte, error) {
	for len(buf) <= maxBodyBytes {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), maxBodyBytes+1)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// doTimed is do, each send with the target's per-request timeout, for the
// requests the run makes outside the attack (set-up, wallet reads, status
// look-ups): a throttled answer is not the answer, so the gate holds the
// run's other such requests off as it asks, paces them under its limit,
// and c is sent again; so is a gateway's 503 or 429 page (a gateway that
// throttles without Retry-After). Any other page of a gateway is an error
// that says so (the contract.Gateway, with what to change). When the
// target kept throttling past the gate's bound, err says so.
func (cl *client) doTimed(ctx context.Context, c call) response {
	for {
		if err := cl.gate.Wait(ctx); err != nil {
			return response{err: err}
		}
		r := cl.doOnce(ctx, c)
		if g := r.gateway; g != nil && !gatewayThrottled(g) {
			r.err = *g
		}
		if !r.throttled && (r.gateway == nil || !gatewayThrottled(r.gateway)) {
			if r.err == nil {
				cl.gate.Answered()
			}
			return r
		}
		r.release()
		if _, err := cl.gate.Throttled(r.header()); err != nil {
			return response{err: err}
		}
	}
}

// gatewayThrottled reports whether a gateway's page g refuses for the
// rate: a 503 or a 429 (without Retry-After, or it would be throttled).
func gatewayThrottled(g *contract.Gateway) bool {
	return g.Status == http.StatusServiceUnavailable || g.Status == http.StatusTooManyRequests
}

// doOnce is do with the target's per-request timeout.
func (cl *client) doOnce(ctx context.Context, c call) response {
	ctx, cancel := context.WithTimeout(ctx, cl.timeout)
	defer cancel()
	return cl.do(ctx, c)
}

// header is the Retry-After of a throttled answer, as a header.
func (r *response) header() http.Header {
	h := http.Header{}
	if r.retryAfter != "" {
		h.Set("Retry-After", r.retryAfter)
	}
	return h
}

// notDelivered reports whether err is a failure to connect (refused, no
// route, the dial timed out): no byte of the request reached the server.
func notDelivered(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// errorText shortens a transport error: the URL (which may hold an id) is
// dropped so that vegeta's list of distinct errors stays short.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	if errors.Is(err, context.Canceled) {
		return "canceled"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return "timeout"
		}
		return ue.Op + ": " + ue.Err.Error()
	}
	return err.Error()
}
