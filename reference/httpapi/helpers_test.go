package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/referencetest"
)

// newTestStore builds a store over the embedded data set with a clock at
// referencetest.T0 (reference's tests have their own: see referencetest).
func newTestStore(tb testing.TB, opts ...reference.Option) (*reference.Store, *referencetest.Clock) {
	tb.Helper()
	ds, err := reference.DefaultDataset()
	require.NoError(tb, err)
	clock := referencetest.NewClockAtT0()
	s, err := reference.NewStore(ds, append([]reference.Option{reference.WithClock(clock.Now)}, opts...)...)
	require.NoError(tb, err)
	return s, clock
}

// wallet reads an account's balance and coins through the domain.
func wallet(tb testing.TB, s *reference.Store, account int64) (balance, coins int64) {
	tb.Helper()
	p, err := s.Profile(reference.Caller{AccountID: account})
	require.NoError(tb, err)
	return p.Balance, p.Coins
}

// payIn is a create payment input.
func payIn(product int64, msisdn string, method int64, trxID string, useBalance, useCoin bool) reference.CreatePaymentInput {
	return reference.CreatePaymentInput{ProductID: product, Msisdn: msisdn, PaymentMethodID: &method,
		PartnerTrxID: trxID, UseBalance: useBalance, UseCoin: useCoin}
}

// specValidator validates responses against openapi.yaml (api.GetSpec).
type specValidator struct {
	router routers.Router
}

func newSpecValidator(tb testing.TB) *specValidator {
	tb.Helper()
	doc, err := api.GetSpec()
	require.NoError(tb, err)
	doc.Servers = nil // match paths on any host
	require.NoError(tb, doc.Validate(context.Background()))
	router, err := legacy.NewRouter(doc)
	require.NoError(tb, err)
	return &specValidator{router: router}
}

// validate checks one response against the contract: a documented status
// (or default), the JSON content type and the schema.
func (v *specValidator) validate(req *http.Request, status int, header http.Header, body []byte) error {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		// Unknown path or method: the contract still wants the error body.
		var eb map[string]any
		if jerr := json.Unmarshal(body, &eb); jerr != nil {
			return jerr
		}
		if _, ok := eb["status"].(bool); !ok {
			return errMissing("status")
		}
		if _, ok := eb["message"].(string); !ok {
			return errMissing("message")
		}
		return nil
	}
	opts := &openapi3filter.Options{
		IncludeResponseStatus: true,
		AuthenticationFunc:    func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
		Status:                 status,
		Header:                 header,
		Options:                opts,
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(req.Context(), in)
}

type errMissing string

func (e errMissing) Error() string { return "error body without " + string(e) }

// testEnv is a reference server behind httptest with a fake clock. Every
// response that goes through env.client is validated against openapi.yaml.
type testEnv struct {
	tb     testing.TB
	store  *reference.Store
	clock  *referencetest.Clock
	srv    *httptest.Server
	spec   *specValidator
	client *api.ClientWithResponses
	// skipValidation lets fault tests see responses that break the contract.
	skipValidation bool
}

func newEnv(tb testing.TB, opts ...reference.Option) *testEnv {
	tb.Helper()
	store, clock := newTestStore(tb, opts...)
	e := &testEnv{tb: tb, store: store, clock: clock, spec: newSpecValidator(tb)}
	e.srv = httptest.NewServer(NewServer(slog.New(slog.DiscardHandler), store))
	tb.Cleanup(e.srv.Close)
	c, err := api.NewClientWithResponses(e.srv.URL, api.WithHTTPClient(e))
	require.NoError(tb, err)
	e.client = c
	return e
}

// Do sends a request and validates the response (api.HttpRequestDoer).
func (e *testEnv) Do(req *http.Request) (*http.Response, error) {
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if !e.skipValidation {
		if verr := e.spec.validate(req, resp.StatusCode, resp.Header, body); verr != nil {
			e.tb.Errorf("%s %s -> %d %s: response breaks openapi.yaml: %v", req.Method, req.URL, resp.StatusCode, body, verr)
		}
	}
	return resp, nil
}

// creds are the two auth headers; empty fields are not sent.
type creds struct{ key, token string }

func (c creds) edit(_ context.Context, req *http.Request) error {
	if c.key != "" {
		req.Header.Set("X-SECRET-KEY", c.key)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return nil
}

var (
	funded = creds{referencetest.KeyNusantara, referencetest.TokFunded}
	main1  = creds{referencetest.KeyNusantara, referencetest.TokMain}
)

// reply is a decoded response.
type reply struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

func (r reply) message() string { s, _ := r.Body["message"].(string); return s }

// get follows a JSON path of object keys.
func (r reply) get(path ...string) any {
	var cur any = r.Body
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// num returns the number at path as int64 (0 when absent).
func (r reply) num(path ...string) int64 {
	f, _ := r.get(path...).(float64)
	return int64(f)
}

func (r reply) str(path ...string) string {
	s, _ := r.get(path...).(string)
	return s
}

// do sends a raw request through the validating client.
func (e *testEnv) do(method, path string, c creds, body string) reply {
	e.tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(e.tb.Context(), method, e.srv.URL+path, rd)
	require.NoError(e.tb, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	require.NoError(e.tb, c.edit(context.Background(), req))
	resp, err := e.Do(req)
	require.NoError(e.tb, err)
	defer resp.Body.Close()
	return decodeReply(e.tb, resp)
}

func decodeReply(tb testing.TB, resp *http.Response) reply {
	tb.Helper()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(tb, err)
	r := reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		require.NoError(tb, json.Unmarshal(raw, &r.Body), "body %s", raw)
	}
	return r
}

// pay creates a payment through the HTTP stack.
func (e *testEnv) pay(c creds, body string) reply {
	e.tb.Helper()
	return e.do(http.MethodPost, "/client/v2/payment", c, body)
}

// payBody renders a create payment body.
func payBody(productID int, msisdn string, method int, trxID string, useBalance, useCoin bool) string {
	b, _ := json.Marshal(map[string]any{
		"product_id": productID, "msisdn": msisdn, "payment_method_id": method,
		"partner_trx_id": trxID, "use_balance": useBalance, "use_coin": useCoin,
	})
	return string(b)
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }
