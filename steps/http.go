package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/profiles"
)

// maxResponseBody is the largest response body the harness reads. A larger
// body is reported as a failure instead of being buffered.
const maxResponseBody = 1 << 20

// failureBodyLimit is how much of a body the text of a failure prints.
const failureBodyLimit = 2048

// exchange is one request and what came back, as recorded by the transport.
type exchange struct {
	Operation  string
	Method     string
	URL        string
	ReqHeader  http.Header
	ReqBody    []byte
	Status     int
	RespHeader http.Header
	RespBody   []byte
	Elapsed    time.Duration
	// Sent is when the request was sent (last, when it was sent again).
	Sent time.Time
	// Err is a transport failure: refused connection, timeout, reset, oversized body.
	Err error
	// Invalid is the response's departure from openapi.yaml, if any.
	Invalid error
	// Gateway is set when the answer came from a gateway in front of the
	// API, not from the API (contract.GatewayAnswer): it is not judged.
	Gateway *contract.Gateway
	// by is the scenario that sent it, whose accounts its reproduction
	// provisions again (reproduction).
	by *scenario
	// before are the requests sent before it with its partner_trx_id (one
	// the run made up): its reproduction sends them first, so that a reuse
	// is reused again.
	before []*exchange
	// Throttled counts the throttled answers (429, or 503 with
	// Retry-After) before this one: the request was sent again after each;
	// FirstThrottle describes the first.
	Throttled     int
	FirstThrottle string
}

// recorder is the api.HttpRequestDoer of one scenario: it bounds each request
// in time, buffers and limits the response, validates it against the
// contract, records coverage, and keeps the exchange for the text of a failure.
type recorder struct {
	s *scenario
}

// Do implements api.HttpRequestDoer. A throttled answer (a 429, or a 503
// with Retry-After) is not the answer to the request: the run holds off as
// it asks and the same request is sent again (throttle.go).
func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	h := r.s.h
	ep := h.endpoint(h.endpointKey(req.Method, req.URL.Path))
	if reason := h.endpointStopped(ep); reason != "" {
		r.s.endpointStopped, r.s.unansweredOn = reason, ep.key
		return nil, fmt.Errorf("%w: %s", errEndpointStopped, reason)
	}
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	if h.abortCtx != nil {
		// A run stopped early on a dead target cancels what is in flight.
		defer context.AfterFunc(h.abortCtx, cancel)()
	}
	// So does an endpoint the target stopped answering, to it.
	defer context.AfterFunc(ep.ctx, cancel)()

	ex := &exchange{Method: req.Method, URL: req.URL.String(), ReqHeader: req.Header.Clone(), by: r.s}
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading request body: %w", err)
		}
		ex.ReqBody = body
		ex.before = h.sameID.add(ex)
	}
	r.s.record(ex)
	for {
		if err := h.gate.Wait(ctx); err != nil {
			ex.Err = r.held(err, ep)
			return nil, ex.Err
		}
		resp, err := r.send(ctx, req, ex, ep)
		if err != nil {
			return nil, err
		}
		if !contract.Throttled(resp.StatusCode, resp.Header) {
			return r.answered(ctx, req, ex, resp)
		}
		if err := r.throttled(ex, ep); err != nil {
			return nil, err
		}
	}
}

// send sends req to ep once, bounded in time, with ex's body, and records
// what came back in ex (its body buffered and limited).
func (r *recorder) send(ctx context.Context, req *http.Request, ex *exchange, ep *endpoint) (*http.Response, error) {
	h := r.s.h
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	req = req.WithContext(ctx)
	if ex.ReqBody != nil {
		body := ex.ReqBody
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	ex.Status, ex.RespHeader, ex.RespBody = 0, nil, nil
	start := time.Now()
	ex.Sent = start
	resp, err := h.http.Do(req)
	if err != nil {
		ex.Elapsed = time.Since(start)
		ex.Err = r.noAnswer(err, ep, start)
		if req.Method == http.MethodPost {
			h.gate.PaymentAnswered(ex.ReqBody) // a payment without an answer may have been made
		}
		return nil, ex.Err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
	ex.Elapsed = time.Since(start)
	ex.Status = resp.StatusCode
	ex.RespHeader = resp.Header.Clone()
	ex.RespBody = data
	switch {
	case err != nil:
		ex.Err = r.noAnswer(err, ep, start)
		return nil, ex.Err
	case len(data) > maxResponseBody:
		// Keep a copy of the prefix a failure prints only: a slice of data
		// would hold the whole read buffer for as long as the failure lives.
		ex.RespBody = bytes.Clone(data[:failureBodyLimit])
		ex.Err = fmt.Errorf("the response body is larger than %d bytes; no answer of the API is that large", maxResponseBody)
		return nil, ex.Err
	}
	if h.abortCtx != nil {
		h.answered()
	}
	h.endpointAnswered(ep, time.Now())
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

// answered validates the answer to req against the contract, records its
// coverage and returns it. An answer a gateway gave instead of the API
// (contract.GatewayAnswer) is neither: it is counted by the run's gate,
// which stops the run once most answers are a gateway's (gateway.go), and
// returned as the request's error (ex.Gateway says which).
func (r *recorder) answered(ctx context.Context, req *http.Request, ex *exchange, resp *http.Response) (*http.Response, error) {
	h := r.s.h
	if g, ok := contract.GatewayAnswer(resp.StatusCode, resp.Header, ex.RespBody); ok {
		ex.Gateway = &g
		if err := h.gate.Gateway(g); err != nil {
			h.gatewayStopped(err)
		}
		return nil, g
	}
	h.gate.Answered()
	// Validate against a fresh copy of the request: the body was consumed.
	vreq := req.Clone(ctx)
	vreq.Body = io.NopCloser(bytes.NewReader(ex.ReqBody))
	ex.Operation, ex.Invalid = h.validator.Validate(ctx, vreq, resp.StatusCode, resp.Header, ex.RespBody)
	if ex.Operation == contract.OpCreatePayment {
		if ex.Throttled > 0 {
			if err := h.gate.CheckResent(ex.ReqBody, resp.StatusCode); err != nil {
				return nil, err
			}
		}
		h.gate.PaymentAnswered(ex.ReqBody)
	}
	h.coverage.exercised(ex.Operation, resp.StatusCode)
	return resp, nil
}

// noAnswer records a request to ep, sent at sent, that got no (complete)
// answer and returns the failure to report. A request cancelled because
// the run stopped early, or stopped sending its endpoint, marks its scenario
// as aborted, or its endpoint as stopped, instead of counting.
func (r *recorder) noAnswer(err error, ep *endpoint, sent time.Time) error {
	h := r.s.h
	if h.interrupted() {
		r.s.interrupted = true
		return fmt.Errorf("the run was %s", h.interruption())
	}
	described := contract.TransportError(err, h.timeout)
	if h.abortCtx == nil {
		return described
	}
	if h.abortCtx.Err() != nil {
		r.s.aborted = true
		return fmt.Errorf("the run stopped early: %w", context.Cause(h.abortCtx))
	}
	if reason := h.endpointStopped(ep); reason != "" {
		r.s.endpointStopped, r.s.unansweredOn = reason, ep.key
		return fmt.Errorf("%w: %s", errEndpointStopped, reason)
	}
	r.s.unansweredAt, r.s.unansweredOn = time.Now(), ep.key
	h.noAnswer(described, r.s.unansweredAt)
	h.endpointNoAnswer(ep, described, sent)
	return described
}

// secretHeaders are masked wherever an exchange is shown.
var secretHeaders = map[string]bool{"Authorization": true, "X-Secret-Key": true}

func writeHeaders(b *strings.Builder, h http.Header) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			if secretHeaders[http.CanonicalHeaderKey(k)] {
				v = profiles.Mask(v)
			}
			fmt.Fprintf(b, "    %s: %s\n", k, v)
		}
	}
}

func cut(body []byte) string {
	if len(body) > failureBodyLimit {
		return string(body[:failureBodyLimit]) + fmt.Sprintf("... (%d bytes in all)", len(body))
	}
	return string(body)
}

// String renders the exchange for the text of a failure, secrets masked,
// ending with its reproduction: the request as a shell script of curl
// that runs as printed (reproduction).
func (ex *exchange) String() string { return ex.shown(ex.reproduction()) }

// shown renders the exchange for the text of a failure, secrets masked,
// ending with the reproduction repro.
func (ex *exchange) shown(repro string) string {
	if ex == nil {
		return "  (no request was sent)\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  request:  %s %s\n", ex.Method, ex.URL)
	writeHeaders(&b, ex.ReqHeader)
	if len(ex.ReqBody) > 0 {
		fmt.Fprintf(&b, "    body: %s\n", cut(ex.ReqBody))
	}
	if ex.Throttled > 0 {
		fmt.Fprintf(&b, "  throttled: %d times before this answer (first: %s); sent again after each wait\n", ex.Throttled, ex.FirstThrottle)
	}
	if ex.Status == 0 {
		fmt.Fprintf(&b, "  response: none after %s (%v)\n", readable.Duration(ex.Elapsed), ex.Err)
		return b.String()
	}
	fmt.Fprintf(&b, "  response: %d %s after %s\n", ex.Status, http.StatusText(ex.Status), readable.Duration(ex.Elapsed))
	writeHeaders(&b, ex.RespHeader)
	b.WriteString(ex.responseBody())
	if ex.Err != nil {
		fmt.Fprintf(&b, "  transport: %v\n", ex.Err)
	}
	b.WriteString(repro)
	return b.String()
}

// sameIDLog keeps the requests sent with each partner_trx_id the run made
// up (repro.MadeUp), in order.
type sameIDLog struct {
	mu   sync.Mutex
	byID map[string][]*exchange
}

// add notes ex when its body carries a made-up partner_trx_id, and
// returns the requests sent with it before.
func (l *sameIDLog) add(ex *exchange) []*exchange {
	var body struct {
		ID string `json:"partner_trx_id"`
	}
	if json.Unmarshal(ex.ReqBody, &body) != nil || !repro.MadeUp(body.ID) {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byID == nil {
		l.byID = map[string][]*exchange{}
	}
	before := l.byID[body.ID]
	l.byID[body.ID] = append(before[:len(before):len(before)], ex)
	return before
}

// failureBodyLines is how many lines of a response body the text of a
// failure shows; the rest is folded (readable.Body).
const failureBodyLines = 40

// responseBody renders the response body for the text of a failure: a
// JSON object or array indented, folded when long, each departure from
// openapi.yaml marked at its value; any other body on one line, cut.
func (ex *exchange) responseBody() string {
	trimmed := bytes.TrimSpace(ex.RespBody)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') || len(ex.RespBody) > maxResponseBody {
		return fmt.Sprintf("    body: %s\n", cut(ex.RespBody))
	}
	var marks map[string]string
	if ae := (*contract.AnswerError)(nil); errors.As(ex.Invalid, &ae) {
		marks = ae.Marks(3)
	}
	pretty := readable.Body(ex.RespBody, marks, failureBodyLines)
	return "    body:\n      " + strings.ReplaceAll(pretty, "\n", "\n      ") + "\n"
}
