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
	"time"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/profiles"
)

// idleConns is how many idle connections a client without a connection cap
// keeps for reuse: vegeta's default, so that connections opened at a high
// rate are reused rather than closed and opened again.
const idleConns = 10000

// maxBodyBytes bounds every response body the load tester reads.
const maxBodyBytes = 1 << 20

// errTooLarge is the error of a response whose body is longer than
// maxBodyBytes: the body is cut there, so it is neither read nor checked.
var errTooLarge = errors.New("response larger than 1 MiB")

// client talks to the server under test: where it is, its credentials, and
// the HTTP client the run uses. It is built from a target profile. (It is
// not a vegeta.Target, which is one request.)
type client struct {
	base      string
	secretKey string
	mainAuth  string // Authorization header of the main partner account
	hc        *http.Client
	timeout   time.Duration
	createURL string // of payment creation, built once
}

// newClient returns a client for profile p with a client capped at maxConns
// connections (0: no cap; up to idleConns of them are kept for reuse).
func newClient(p *profiles.Profile, maxConns int, timeout time.Duration) (*client, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	tr := &http.Transport{
		Proxy:               nil, // load is sent to the target, never through a proxy
		DialContext:         (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxConnsPerHost:     maxConns,
		MaxIdleConns:        cmp.Or(maxConns, idleConns),
		MaxIdleConnsPerHost: cmp.Or(maxConns, idleConns),
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		TLSHandshakeTimeout: timeout,
	}
	base := strings.TrimRight(p.BaseURL, "/")
	req, err := api.NewCreatePaymentRequestWithBody(base, "application/json", nil)
	if err != nil {
		return nil, fmt.Errorf("target %q: %w", base, err)
	}
	return &client{
		createURL: req.URL.String(),
		base:      base,
		secretKey: p.SecretKey,
		mainAuth:  bearer(p.MainToken),
		hc:        &http.Client{Transport: tr, CheckRedirect: noRedirects},
		timeout:   timeout,
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

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// close releases the target's idle connections.
func (cl *client) close() { cl.hc.CloseIdleConnections() }

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
	code  int
	body  []byte
	bytes uint64
	// err is a transport error or a timeout (no answer, or an answer cut
	// off), or errTooLarge (an answer too long to read).
	err error
}

// do sends c under ctx and reads the whole (bounded) body.
func (cl *client) do(ctx context.Context, c call) response {
	if c.err != nil {
		return response{err: c.err}
	}
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, c.url, body)
	if err != nil {
		return response{err: err}
	}
	req.Header.Set("X-SECRET-KEY", cl.secretKey)
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := cl.hc.Do(req)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes+1))
	if err != nil {
		return response{code: resp.StatusCode, bytes: uint64(len(b)), err: err}
	}
	if len(b) > maxBodyBytes {
		return response{code: resp.StatusCode, body: b[:maxBodyBytes], bytes: uint64(len(b)), err: errTooLarge}
	}
	return response{code: resp.StatusCode, body: b, bytes: uint64(len(b))}
}

// doTimed is do with the target's per-request timeout.
func (cl *client) doTimed(ctx context.Context, c call) response {
	ctx, cancel := context.WithTimeout(ctx, cl.timeout)
	defer cancel()
	return cl.do(ctx, c)
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
