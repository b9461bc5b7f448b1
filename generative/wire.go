package generative

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/internal/throttle"
)

// maxAnswer is the largest answer body read; no answer of the API is larger.
const maxAnswer = 1 << 20

// request is one generated HTTP request, kept in a form that can be
// printed as its reproduction (world.reproduce).
type request struct {
	Method string
	Path   string
	// Query is the raw query string, so that repeated and malformed
	// parameters survive as generated.
	Query string
	// Secret and Token are the credentials; a reproduction writes them as
	// variables.
	Secret, Token string
	// ContentType is sent when Body is not nil.
	ContentType string
	Body        []byte
}

// answer is what came back.
type answer struct {
	Status    int
	Header    http.Header
	Body      []byte
	Operation string
	// Invalid is the answer's departure from openapi.yaml.
	Invalid error
	// Err is a transport failure, or the page of a gateway (Gateway).
	Err error
	// Gateway is set when a gateway in front of the API answered instead
	// of the API (contract.GatewayAnswer): no example is judged by it.
	Gateway *contract.Gateway
}

// client sends requests to the target and validates every answer. A
// throttled answer (a 429, or a 503 with Retry-After) is not the answer:
// the run holds off as it asks (gate) and the same request is sent again.
type client struct {
	base      string
	http      *http.Client
	timeout   time.Duration
	validator *contract.Validator
	doc       *openapi3.T
	sent      atomic.Int64
	gate      *throttle.Gate
	// stop stops the run when the target kept throttling, or its answers
	// were mostly a gateway's (the gate's error).
	stop context.CancelCauseFunc
	// pages counts the answers a gateway gave instead of the API, the
	// last of them lastPage.
	pages    atomic.Int64
	lastPage atomic.Pointer[contract.Gateway]
	// exchanges are the requests sent and their answers since the example
	// began (captured): a failure's HAR file (WriteFeatures).
	exchanges capture
}

// capture keeps the requests and answers of one example: the examples of
// a run are one at a time (its properties in turn, rapid's examples in
// turn), and record.begin starts each one's.
type capture struct {
	mu   sync.Mutex
	list []repro.Exchange
}

func (c *capture) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = nil
}

func (c *capture) add(ex repro.Exchange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, ex)
}

// taken are the exchanges kept so far.
func (c *capture) taken() []repro.Exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.list)
}

func newClient(base string, hc *http.Client, timeout time.Duration, gate *throttle.Gate, stop context.CancelCauseFunc) (*client, error) {
	v, err := contract.NewValidator(base)
	if err != nil {
		return nil, err
	}
	if hc == nil {
		hc = &http.Client{}
	}
	doc, err := contract.Spec()
	if err != nil {
		return nil, err
	}
	return &client{base: strings.TrimRight(base, "/"), http: hc, timeout: timeout, validator: v, doc: doc, gate: gate, stop: stop}, nil
}

func (r request) url(base string) string {
	u := base + r.Path
	if r.Query != "" {
		u += "?" + r.Query
	}
	return u
}

func (r request) httpRequest(ctx context.Context, base string) (*http.Request, error) {
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.url(base), body)
	if err != nil {
		return nil, err
	}
	req.Header = r.header()
	return req, nil
}

// header is r's header: the credentials, and the body's Content-Type.
func (r request) header() http.Header {
	h := http.Header{}
	if r.Secret != "" {
		h.Set("X-SECRET-KEY", r.Secret)
	}
	if r.Token != "" {
		h.Set("Authorization", "Bearer "+r.Token)
	}
	if r.Body != nil {
		h.Set("Content-Type", r.ContentType)
	}
	return h
}

// do sends r, bounded by the client's timeout, and validates the answer,
// after waiting out the throttled answers before it. A gateway's page
// (answer.Gateway) is counted by the gate, which stops the run once most
// answers are a gateway's. A payment answered
// 409 after throttled answers, with a partner_trx_id no earlier request
// used, is the server's finding (contract.CheckThrottledNotProcessed): its
// Err says so.
func (c *client) do(ctx context.Context, r request) answer {
	var payment []byte
	if r.Method == http.MethodPost && r.Path == pathPayment {
		payment = r.Body
	}
	s := c.gate.Send(ctx, func(ctx context.Context, _ int) throttle.Try {
		sent := time.Now()
		t := c.once(ctx, r)
		c.exchanges.add(repro.Exchange{Sent: sent, Elapsed: time.Since(sent), Method: r.Method, URL: r.url(c.base), ReqHeader: r.header(),
			ReqBody: r.Body, Status: t.Status, RespHeader: t.Header, RespBody: t.Body})
		return t
	}, payment, false, c.stop)
	a := answer{Status: s.Status, Header: s.Header, Body: s.Body, Err: s.Err, Gateway: s.Gateway}
	switch {
	case s.Gateway != nil:
		c.pages.Add(1)
		c.lastPage.Store(s.Gateway)
	case a.Err == nil:
		a.Operation, a.Invalid = c.validate(ctx, r, a)
	}
	if s.Resent != nil {
		a.Err = s.Resent
	}
	return a
}

// once sends r once, bounded by the client's timeout.
func (c *client) once(ctx context.Context, r request) throttle.Try {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := r.httpRequest(ctx, c.base)
	if err != nil {
		return throttle.Try{Err: err}
	}
	c.sent.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return throttle.Try{Err: contract.TransportError(err, c.timeout)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	t := throttle.Try{Status: resp.StatusCode, Header: resp.Header.Clone(), Body: data}
	switch {
	case err != nil:
		t.Err = fmt.Errorf("reading the answer: %w", err)
	case len(data) > maxAnswer:
		t.Err = fmt.Errorf("the answer is larger than %d bytes", maxAnswer)
	}
	return t
}

// validate judges the API's answer a to r against openapi.yaml (the
// operation and its departures, contract.Validator).
func (c *client) validate(ctx context.Context, r request, a answer) (string, error) {
	vreq, err := r.httpRequest(ctx, c.base)
	if err != nil {
		return "", err
	}
	return c.validator.Validate(ctx, vreq, a.Status, a.Header, a.Body)
}

// reproduce is r as the shell script of its reproduction (package repro:
// the secrets as variables named after their profile keys, the cashier
// provisioned again for its token, a made-up partner_trx_id fresh on each
// run), under title.
func (w *world) reproduce(title string, r request) string {
	s := repro.New(w.prof, w.profilePath, w.conn)
	s.Title(title)
	if c := w.cashier; c != nil {
		s.Provisioned(c.Token, w.prof.SecretKey, "cashier", c.provisioning())
	}
	s.Add(repro.Request{Method: r.Method, Path: r.Path, Query: r.Query, Header: r.header(), Body: r.Body})
	return s.String()
}

// reproduceWallet is r, a payment of payer, as the script of its
// reproduction by the payer's wallet, under title: the wallet read, r sent,
// the wallet read again and checked as checkPaymentEffects checks it
// (package repro's wallet check, internal/contract's arithmetic: a created
// payment takes what it reports, a refused one nothing). It prints DEFECT
// with the figures, or that it saw none.
func (w *world) reproduceWallet(title string, r request, payer *account) string {
	s := repro.New(w.prof, w.profilePath, w.conn)
	s.Title(title)
	if c := w.cashier; c != nil {
		s.Provisioned(c.Token, w.prof.SecretKey, "cashier", c.provisioning())
	}
	profile := repro.Request{Method: http.MethodGet, Path: "/client/v2/customer/profile", Header: request{Secret: w.prof.SecretKey, Token: payer.Token}.header()}
	s.Save("before", profile)
	s.WalletFrom("before")
	s.Save("payment", repro.Request{Method: r.Method, Path: r.Path, Query: r.Query, Header: r.header(), Body: r.Body})
	s.Paid("payment")
	s.Save("after", profile)
	s.WalletCheck("after")
	s.Verdict()
	return s.String()
}

// reproduceSequence is a sequence's requests sent (the secret key set
// on each), as the script of its failure by the wallet of acc, under title:
// the accounts the sequence provisioned provisioned again for their tokens,
// acc's wallet read first (where the model starts it), then the requests in
// order but for the reads other than acc's profile (they change nothing):
// acc's payments take what they report, each read of acc's profile is
// checked (package repro's wallet check, internal/contract's arithmetic, as
// the model checks it). It prints DEFECT with the figures, or that it saw
// none.
func (w *world) reproduceSequence(title string, acc *account, accounts []*account, sent []request) string {
	s := repro.New(w.prof, w.profilePath, w.conn)
	s.Title(title)
	for _, a := range accounts {
		if a.Phone != "" && a.Token != "" {
			s.Provisioned(a.Token, w.prof.SecretKey, a.Label, a.provisioning())
		}
	}
	mine := func(r request) bool { return r.Token == acc.Token }
	s.Save("wallet", repro.Request{Method: http.MethodGet, Path: pathProfile, Header: request{Secret: w.prof.SecretKey, Token: acc.Token}.header()})
	s.WalletFrom("wallet")
	for i, r := range sent {
		rr := repro.Request{Method: r.Method, Path: r.Path, Query: r.Query, Header: r.header(), Body: r.Body}
		switch {
		case mine(r) && r.Method == http.MethodGet && r.Path == pathProfile:
			name := fmt.Sprintf("wallet%d", i+1)
			s.Save(name, rr)
			s.WalletCheck(name)
		case mine(r) && r.Method == http.MethodPost && r.Path == pathPayment:
			name := fmt.Sprintf("payment%d", i+1)
			s.Save(name, rr)
			s.Paid(name)
		case r.Method != http.MethodGet:
			s.Save(fmt.Sprintf("answer%d", i+1), rr)
		}
	}
	s.Verdict()
	return s.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// encodeQuery renders pairs in order, repeated keys included.
func encodeQuery(pairs [][2]string) string {
	parts := make([]string, 0, len(pairs))
	for _, p := range pairs {
		parts = append(parts, url.QueryEscape(p[0])+"="+url.QueryEscape(p[1]))
	}
	return strings.Join(parts, "&")
}

// validatorDoc is the embedded openapi.yaml.
func (c *client) validatorDoc() *openapi3.T { return c.doc }
