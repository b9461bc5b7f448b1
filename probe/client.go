package probe

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/throttle"
)

// maxAnswer is the largest answer body read; no answer of the API is larger.
const maxAnswer = 1 << 20

// The paths the probe sends to.
const (
	pathSync      = "/client/v2/product/sync"
	pathProfile   = "/client/v2/customer/profile"
	pathProvision = "/client/v2/customer/provision_account"
	pathMethods   = "/client/v2/payment/methods"
	pathPayment   = "/client/v2/payment"
	pathStatus    = "/client/v2/payment/status"
)

// request is one request of the probe, kept so that a reproduction can
// print it.
type request struct {
	op     string // the operationId
	method string
	path   string
	query  string
	secret string // the partner's secret key; "": the profile's
	token  string
	body   []byte // JSON, or nil
	// shared marks a payment sent at once with others of its
	// partner_trx_id: whether one of them used the id before a throttled
	// one was sent again is not known when it is answered, so
	// contract.CheckThrottledNotProcessed cannot judge it (a status lookup
	// of the id does: contract.CheckFound).
	shared bool
	// hold, when set, holds the last byte of the body until the wave is
	// released (only the first send: one sent again goes at once).
	hold *slot
}

// answer is what came back to a request.
type answer struct {
	status int
	body   []byte
	env    contract.Envelope
	// err is a transport failure (no answer within the request timeout,
	// a connection refused or closed): the outcome is uncertain.
	err error
	// throttled counts the throttled answers before this one.
	throttled int
	// resent is the contract's finding on a payment answered after
	// throttled answers (contract.CheckThrottledNotProcessed), or nil.
	resent error
	// invalid is what the answer breaks of what every answer carries
	// (contract.CheckEnvelope: its label, one JSON object with status and
	// message), judged before any rule of its content, or nil.
	invalid error
}

// answered reports whether the request got an answer.
func (a answer) answered() bool { return a.err == nil }

// client sends the probe's requests through the run's throttle gate.
type client struct {
	base, secret string
	http         *http.Client
	timeout      time.Duration
	gate         *throttle.Gate
	// stop stops the run when the target kept throttling (the gate's error).
	stop context.CancelCauseFunc
	sent atomic.Int64
}

// httpClient is opts.HTTPClient, or a client of the transport options
// whose pool keeps a wave's connections (and a few more) open between
// waves, so that a wave's payments leave at once.
func httpClient(opts Options) (*http.Client, error) {
	if opts.HTTPClient != nil {
		return opts.HTTPClient, nil
	}
	cfg, err := opts.Conn.TLSConfig()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg
	tr.MaxIdleConnsPerHost = opts.WaveSize + 4
	// A small write buffer sends a wave's requests as their bodies are
	// read, so that each reaches the target but for its last byte (hold).
	tr.WriteBufferSize = 64
	return &http.Client{Transport: opts.Conn.Wrap(tr)}, nil
}

// do sends r with the run's patience (throttle.Gate.Send: the throttled
// answers waited out and the same request sent again, a gateway's page
// counted as no answer of the API's) and reads the envelope of the answer,
// judged first by what every answer carries (contract.CheckEnvelope).
func (c *client) do(ctx context.Context, r request) answer {
	var payment []byte
	if r.op == contract.OpCreatePayment {
		payment = r.body
	}
	s := c.gate.Send(ctx, func(ctx context.Context, tries int) throttle.Try {
		if tries > 0 {
			r.hold = nil // only the first send is held for its wave
		}
		a, header := c.once(ctx, r)
		return throttle.Try{Status: a.status, Header: header, Body: a.body, Err: a.err}
	}, payment, r.shared, c.stop)
	a := answer{status: s.Status, body: s.Body, err: s.Err, throttled: s.Throttled, resent: s.Resent}
	if a.err == nil {
		a.env, a.invalid = contract.CheckEnvelope(r.op, a.status, s.Header.Get("Content-Type"), a.body)
		if a.invalid != nil {
			a.env, _, _ = contract.Decode(a.body) // what it holds, for the reasons
		}
	}
	return a
}

// once sends r once, bounded by the request timeout.
func (c *client) once(ctx context.Context, r request) (answer, http.Header) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var body io.Reader
	switch {
	case r.body != nil && r.hold != nil:
		body = &heldBody{data: r.body, slot: r.hold}
	case r.body != nil:
		body = bytes.NewReader(r.body)
	}
	u := c.base + r.path
	if r.query != "" {
		u += "?" + r.query
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return answer{err: err}, nil
	}
	req.Header.Set("X-SECRET-KEY", cmp.Or(r.secret, c.secret))
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = int64(len(r.body))
	}
	c.sent.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{err: contract.TransportError(err, c.timeout)}, nil
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	a := answer{status: resp.StatusCode, body: data}
	switch {
	case err != nil:
		a.err = contract.TransportError(fmt.Errorf("reading the answer: %w", err), c.timeout)
	case len(data) > maxAnswer:
		a.err = fmt.Errorf("the answer is larger than %d bytes", maxAnswer)
	}
	return a, resp.Header
}

// wave sends the requests at once. Each is sent but for the last byte of
// its body, which it holds until every one of them has been sent so far
// (or maxHold has passed): then all the last bytes go together, and the
// target, whose handlers have read all but that byte, meets the requests
// at the same moment rather than one after another as they were written.
// (A transport that buffers the body, such as one given as
// Options.HTTPClient with a large write buffer, sends the requests only
// when they are released: they still go together.) The answers come back
// in the order of reqs.
func (c *client) wave(ctx context.Context, reqs []request) []answer {
	out := make([]answer, len(reqs))
	h := &hold{release: make(chan struct{})}
	h.armed.Add(len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		r.hold = &slot{hold: h}
		wg.Go(func() {
			out[i] = c.do(ctx, r)
			r.hold.arm() // a request that ended without reading its body all
		})
	}
	armed := make(chan struct{})
	go func() { h.armed.Wait(); close(armed) }()
	t := time.NewTimer(min(maxHold, c.timeout/4))
	select {
	case <-armed:
	case <-t.C:
	case <-ctx.Done():
	}
	t.Stop()
	close(h.release)
	wg.Wait()
	return out
}

// maxHold bounds how long a wave waits for its requests to be sent but for
// their last byte: a request the gate holds (Options.Rate) goes later.
const maxHold = 500 * time.Millisecond

// hold is the barrier of a wave: each request arms it once (when its body
// has been read but for the last byte, or when it ended), and release lets
// the last bytes go.
type hold struct {
	armed   sync.WaitGroup
	release chan struct{}
}

// slot is one request's place at a hold.
type slot struct {
	hold *hold
	once sync.Once
}

// arm counts the request as sent so far, once.
func (s *slot) arm() { s.once.Do(s.hold.armed.Done) }

// heldBody is a request body that holds its last byte until its wave is
// released.
type heldBody struct {
	data []byte
	off  int
	slot *slot
}

func (b *heldBody) Read(p []byte) (int, error) {
	last := len(b.data) - 1
	switch {
	case b.off < last:
		n := copy(p, b.data[b.off:last])
		b.off += n
		return n, nil
	case b.off == last:
		b.slot.arm()
		<-b.slot.hold.release
		n := copy(p, b.data[last:])
		b.off += n
		return n, nil
	}
	return 0, io.EOF
}

// newClient is the client of a run.
func newClient(opts Options, gate *throttle.Gate, stop context.CancelCauseFunc) (*client, error) {
	hc, err := httpClient(opts)
	if err != nil {
		return nil, err
	}
	return &client{base: strings.TrimRight(opts.Profile.BaseURL, "/"), secret: opts.Profile.SecretKey, http: hc,
		timeout: opts.RequestTimeout, gate: gate, stop: stop}, nil
}
