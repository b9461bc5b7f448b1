package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/referencetest"
)

// paymentRequest is one create-payment request as a test sends it.
type paymentRequest struct {
	body        string
	contentType string // "" sends none
	token       string
	length      int  // the announced Content-Length less the body's
	breakAfter  int  // > 0: the body fails with an error after this many bytes
	unknown     bool // Content-Length unknown (as chunked)
}

func (p paymentRequest) build(tb testing.TB) *http.Request {
	tb.Helper()
	var body io.Reader = strings.NewReader(p.body)
	if p.breakAfter > 0 && p.breakAfter < len(p.body) {
		body = io.MultiReader(strings.NewReader(p.body[:p.breakAfter]), errReader{errors.New("connection reset")})
	}
	req := httptest.NewRequestWithContext(tb.Context(), http.MethodPost, "/client/v2/payment", body)
	req.ContentLength = int64(len(p.body) + p.length)
	if p.unknown {
		req.ContentLength = -1
	}
	if p.contentType != "" {
		req.Header.Set("Content-Type", p.contentType)
	}
	req.Header.Set("X-SECRET-KEY", referencetest.KeyNusantara)
	req.Header.Set("Authorization", "Bearer "+p.token)
	return req
}

// answer is a recorded response with the random gateway token (and the
// redirect URL made of it) replaced by a fixed text.
type answer struct {
	code   int
	header http.Header
	body   string
}

func serveAnswer(tb testing.TB, h http.Handler, p paymentRequest) answer {
	tb.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, p.build(tb))
	body := rec.Body.String()
	var env api.CreatePaymentEnvelope
	if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &env) == nil && env.Data.Payment.Token != nil && *env.Data.Payment.Token != "" {
		body = strings.ReplaceAll(body, *env.Data.Payment.Token, "TOKEN")
	}
	return answer{code: rec.Code, header: rec.Header(), body: body}
}

// TestPaymentFastPathAnswersAsGeneralPath sends the same generated requests
// (bodies valid, near-valid and broken; content types; funded, empty and
// broken wallets; wrong, unknown and broken lengths) to a server with the
// fast path and one without, over identical stores, and compares every
// answer byte for byte (status, headers, body), then the wallets.
func TestPaymentFastPathAnswersAsGeneralPath(t *testing.T) {
	t.Parallel()
	fastStore, _ := newTestStore(t)
	generalStore, _ := newTestStore(t)
	logger := slog.New(slog.DiscardHandler)
	fast, general := newServer(logger, fastStore, true), newServer(logger, generalStore, false)
	tookFast := 0
	rapid.Check(t, func(rt *rapid.T) {
		p := paymentRequest{
			body:        rapid.OneOf(realisticPaymentBodyGen(), paymentBodyGen()).Draw(rt, "body"),
			contentType: rapid.SampledFrom([]string{"application/json", "application/json", "", "application/json; charset=utf-8", "application/json;charset=UTF-8", "application/json; charset=latin1", "APPLICATION/JSON", "text/plain", "application/json;;"}).Draw(rt, "content type"),
			token:       rapid.SampledFrom([]string{"tok-nusantara-load-1", "tok-nusantara-load-1", referencetest.TokFunded, referencetest.TokSplit, referencetest.TokEmpty, referencetest.TokBroken, "tok-unknown"}).Draw(rt, "token"),
		}
		switch rapid.IntRange(0, 9).Draw(rt, "length") {
		case 0:
			p.length = rapid.IntRange(-3, 3).Draw(rt, "length off by")
		case 1:
			p.unknown = true
		case 2:
			p.breakAfter = rapid.IntRange(1, 200).Draw(rt, "break after")
		}
		if p.length < -len(p.body) {
			p.length = -len(p.body)
		}
		want := serveAnswer(t, general, p)
		got := serveAnswer(t, fast, p)
		if got.code != want.code || got.body != want.body || !assert.ObjectsAreEqual(want.header, got.header) {
			rt.Fatalf("request %+v\nfast path:    %d %v %s\ngeneral path: %d %v %s", p, got.code, got.header, got.body, want.code, want.header, want.body)
		}
		if got.code == http.StatusOK {
			tookFast++
		}
	})
	assert.Positive(t, tookFast, "no payment was created")
	for _, account := range []int64{21, 1} {
		fb, fc := wallet(t, fastStore, account)
		gb, gc := wallet(t, generalStore, account)
		assert.Equal(t, [2]int64{gb, gc}, [2]int64{fb, fc}, "wallet of account %d", account)
	}
}

// realisticPaymentBodyGen makes bodies with values the data set knows and
// does not: some create payments, others meet each domain refusal
// (unknown product or method, bad number, duplicate partner_trx_id, no
// funds, a promotion).
func realisticPaymentBodyGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		members := []string{}
		add := func(key string, values ...string) {
			v := rapid.SampledFrom(append(values, "")).Draw(t, key)
			if v != "" {
				members = append(members, `"`+key+`":`+v)
			}
		}
		add("product_id", "1002", "1002", "1001", "1008", "9999", "0", "-1")
		add("msisdn", `"081234567890"`, `"081234567890"`, `"0812"`, `""`, `"abc"`, `"08123456789012345"`)
		add("payment_method_id", "0", "0", "1", "2", "9", "99", "null")
		add("use_balance", "true", "true", "false", "null")
		add("use_coin", "true", "false", "null")
		add("partner_trx_id", `"p-`+strconv.Itoa(rapid.IntRange(0, 400).Draw(t, "trx"))+`"`, `""`, `" "`)
		add("shift_code", `"S1"`, "null")
		add("promotion_id", "1", "7", "null")
		add("parts", "null")
		members = rapid.Permutation(members).Draw(t, "order")
		return "{" + strings.Join(members, ",") + "}"
	})
}

// TestPaymentFastPathTakesCommonRequest: the load-test request takes the
// fast path (a server whose general path is broken still answers it), with
// the usual spellings of a JSON content type; others do not.
func TestPaymentFastPathTakesCommonRequest(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	h := newServer(slog.New(slog.DiscardHandler), store, true)
	// Break the general path behind the gate: only the fast path can answer 200.
	g := findGate(t, h)
	g.next = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })

	common := paymentRequest{body: `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"use_coin":true,"partner_trx_id":"fast-1"}`,
		contentType: "application/json", token: "tok-nusantara-load-1"}
	a := serveAnswer(t, h, common)
	require.Equal(t, http.StatusOK, a.code, a.body)
	assert.Equal(t, []string{"application/json"}, a.header["Content-Type"])
	assert.Contains(t, a.body, `"partner_trx_id":"fast-1"`)

	for i, ct := range []string{"", "application/json; charset=utf-8", "application/json;charset=UTF-8"} {
		common.contentType = ct
		common.body = strings.Replace(common.body, "fast-"+strconv.Itoa(i+1), "fast-"+strconv.Itoa(i+2), 1)
		assert.Equal(t, http.StatusOK, serveAnswer(t, h, common).code, "content type %q", ct)
	}
	for _, ct := range []string{"application/json; charset=latin1", "Application/JSON", "text/plain"} {
		common.contentType = ct
		assert.NotEqual(t, http.StatusOK, serveAnswer(t, h, common).code, "content type %q", ct) // the general path's 418 or 400
	}
}

// findGate digs the gate out of NewServer's handler chain (no faults).
func findGate(tb testing.TB, h http.Handler) *gate {
	tb.Helper()
	o, ok := h.(*observer)
	require.True(tb, ok)
	g, ok := o.next.(*gate)
	require.True(tb, ok)
	return g
}

// TestPaymentFastPathOffWithRequestFaults: a request fault sits in front of
// the strict server, where the fast path does not pass, so a server with
// one has no fast path.
func TestPaymentFastPathOffWithRequestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		faults []reference.Fault
		fast   bool
	}{
		{"no fault", nil, true},
		{"a request fault", []reference.Fault{reference.FaultNullOptionalRefused}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store, _ := newTestStore(t, reference.WithFaults(tt.faults...))
			assert.Equal(t, tt.fast, findGate(t, NewServer(nil, store)).fast != nil)
		})
	}
}

// TestReadUpTo covers the fast path's body reader.
func TestReadUpTo(t *testing.T) {
	t.Parallel()
	broken := errors.New("broken")
	tests := []struct {
		name    string
		r       io.Reader
		max     int
		want    string
		wantErr error
	}{
		{"shorter than max", strings.NewReader("abc"), 5, "abc", nil},
		{"stops at max", strings.NewReader("abcdef"), 4, "abcd", nil},
		{"error after bytes", io.MultiReader(strings.NewReader("ab"), errReader{broken}), 5, "ab", broken},
		{"one byte at a time", &oneByteReader{s: "abc"}, 5, "abc", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := readUpTo(tt.r, make([]byte, 0, 2), tt.max)
			assert.Equal(t, tt.want, string(got))
			assert.ErrorIs(t, err, tt.wantErr)
			if tt.wantErr == nil {
				assert.NoError(t, err)
			}
		})
	}
}

type oneByteReader struct{ s string }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if o.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = o.s[0]
	o.s = o.s[1:]
	return 1, nil
}

// TestPaymentFastPathAllocations counts (not times) the fast path's own
// allocations on the load-test body: the decoder copies the two strings
// the domain keeps and nothing else, and the answer is written into the
// pooled buffer without any. (Not parallel: AllocsPerRun refuses.)
func TestPaymentFastPathAllocations(t *testing.T) {
	body := []byte(`{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"use_coin":true,"partner_trx_id":"alloc-1"}`)
	var pb paymentBody
	decode := testing.AllocsPerRun(100, func() {
		if !decodePaymentBody(body, &pb) {
			t.Fatal("the fast path left the load-test body")
		}
	})
	assert.Equal(t, 2.0, decode, "allocations of decodePaymentBody")

	var resp api.CreatePayment200JSONResponse
	resp.Status, resp.Message = true, msgPaymentCreated
	resp.Data.PaymentMethod.Name, resp.Data.Transaction.PartnerTrxId = "Saldo & Koin", "alloc-1"
	buf := make([]byte, 0, 1024)
	encode := testing.AllocsPerRun(100, func() { buf = appendPaymentAnswer(buf[:0], &resp) })
	assert.Zero(t, encode, "allocations of appendPaymentAnswer into a large enough buffer")
}
