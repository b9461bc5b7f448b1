package httpapi

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/referencetest"
)

// TestEncodedPathsAnswerJSON: an escaped slash (or any escape) in the path
// of each endpoint names no route and is answered in JSON, not with the
// router's text/plain "404 page not found".
func TestEncodedPathsAnswerJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{
		"/client/v2/product%2Flist", "/client/v2/product%2Fsync", "/client/v2/customer%2Fprofile",
		"/client/v2/customer%2Fprovision_account", "/client/v2/payment%2Fmethods", "/client%2Fv2/payment",
		"/client/v2/payment%2Fstatus", "/client/v2/payment/statu%73", "/%2e%2e/client/v2/payment/status",
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			u, err := url.Parse(e.srv.URL + path)
			require.NoError(t, err)
			req, err := http.NewRequestWithContext(t.Context(), method, u.String(), nil)
			require.NoError(t, err)
			require.NoError(t, funded.edit(t.Context(), req))
			resp, err := e.srv.Client().Do(req)
			require.NoError(t, err)
			r := decodeReply(t, resp)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, http.StatusNotFound, r.Status, "%s %s: %s", method, path, r.Raw)
			assert.Equal(t, "application/json", r.Header.Get("Content-Type"), "%s %s", method, path)
			assert.Equal(t, "Endpoint tidak ditemukan.", r.message(), "%s %s", method, path)
		}
	}
}

// rawExchange sends one raw HTTP/1.1 request to addr and returns the
// response's status, header and body (read and closed).
func rawExchange(t *testing.T, addr, request string) (status int, header http.Header, body []byte) {
	t.Helper()
	conn, err := (&net.Dialer{Timeout: 2 * time.Second}).DialContext(t.Context(), "tcp", addr)
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = io.WriteString(conn, request)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header, body
}

// serveHTTPServer serves NewHTTPServer on a loopback port.
func serveHTTPServer(t *testing.T) string {
	t.Helper()
	store, _ := newTestStore(t)
	srv := NewHTTPServer(slog.New(slog.DiscardHandler), store)
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// TestOptionsStarAnswersJSON: "OPTIONS *" reaches the handler
// (DisableGeneralOptionsHandler) and is answered in JSON.
func TestOptionsStarAnswersJSON(t *testing.T) {
	t.Parallel()
	addr := serveHTTPServer(t)
	status, header, body := rawExchange(t, addr, "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "application/json", header.Get("Content-Type"))
	assert.JSONEq(t, `{"status":false,"message":"Endpoint tidak ditemukan."}`, string(body))
}

// TestStrictBodies: bodies encoding/json would read leniently are refused
// with a 400 JSON answer and change nothing: no payment is created, no
// wallet is debited and the partner_trx_id stays free.
func TestStrictBodies(t *testing.T) {
	t.Parallel()
	const valid = `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"strict-1"}`
	cases := []struct {
		name, contentType, body, trxID, message string
	}{
		{"trailing data", "application/json", valid + ` x`, "strict-1", "Format permintaan tidak valid."},
		{"a second object", "application/json", valid + valid, "strict-1", "Format permintaan tidak valid."},
		{"duplicate key", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"strict-2","partner_trx_id":"strict-3"}`, "strict-3", "Format permintaan tidak valid."},
		{"duplicate key in another case", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"strict-4","PARTNER_TRX_ID":"strict-5"}`, "strict-5", "Format permintaan tidak valid."},
		{"keys in the wrong case only", "application/json", `{"Product_Id":1002,"MSISDN":"081234567890","payment_method_id":0,"use_balance":true,"Partner_Trx_Id":"strict-6"}`, "strict-6", "Format permintaan tidak valid."},
		{"duplicate key in parts", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"strict-7","parts":{"a":1,"a":2}}`, "strict-7", "Format permintaan tidak valid."},
		{"text/plain", "text/plain", valid, "strict-1", "Format permintaan tidak valid."},
		{"form", "application/x-www-form-urlencoded", valid, "strict-1", "Format permintaan tidak valid."},
		{"invalid UTF-8 in partner_trx_id", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"bad-` + "\xff" + `"}`, "bad-\xff", "Format permintaan tidak valid."},
		{"lone high surrogate", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"sur-\ud800"}`, "sur-\uFFFD", "Format permintaan tidak valid."},
		{"lone low surrogate", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"sur-\udc00x"}`, "sur-\uFFFDx", "Format permintaan tidak valid."},
		{"lone surrogate in shift_code", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"strict-8","shift_code":"\udbff"}`, "strict-8", "Format permintaan tidak valid."},
		{"zero-width partner_trx_id", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"\u200b\ufeff"}`, "\u200b\ufeff", "ID transaksi mitra wajib diisi."},
		{"ideographic-space partner_trx_id", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"\u3000\u3164"}`, "\u3000\u3164", "ID transaksi mitra wajib diisi."},
		{"control character in partner_trx_id", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"ctl-\u0000"}`, "ctl-\x00", "ID transaksi mitra tidak valid."},
		{"control character in shift_code", "application/json", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"strict-9","shift_code":"s\u0007"}`, "strict-9", "Kode shift tidak valid."},
		{"invisible msisdn", "application/json", `{"product_id":1002,"msisdn":"\u200b","payment_method_id":0,"use_balance":true,"partner_trx_id":"strict-10"}`, "strict-10", "Nomor tujuan wajib diisi."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			b0, c0 := wallet(t, e.store, 11)
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.srv.URL+"/client/v2/payment", strings.NewReader(tc.body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", tc.contentType)
			require.NoError(t, funded.edit(t.Context(), req))
			resp, err := e.Do(req)
			require.NoError(t, err)
			r := decodeReply(t, resp)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Raw)
			assert.Equal(t, tc.message, r.message())
			b1, c1 := wallet(t, e.store, 11)
			assert.Equal(t, [2]int64{b0, c0}, [2]int64{b1, c1}, "the wallet changed")
			st := e.do(http.MethodGet, "/client/v2/payment/status?partner_trx_id="+url.QueryEscape(tc.trxID), funded, "")
			assert.NotEqual(t, http.StatusOK, st.Status, "a transaction was stored under %q", tc.trxID)
		})
	}
}

// TestSurrogateIDsDoNotCollide: two partner_trx_ids with different lone
// surrogates are refused; encoding/json alone would read both as U+FFFD
// and answer the second with 409. A valid surrogate pair is kept.
func TestSurrogateIDsDoNotCollide(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	body := func(id string) string {
		return `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"` + id + `"}`
	}
	assert.Equal(t, http.StatusBadRequest, e.pay(funded, body(`sur-\ud800`)).Status)
	assert.Equal(t, http.StatusBadRequest, e.pay(funded, body(`sur-\udbff`)).Status)
	ok := e.pay(funded, body(`emoji-\ud83d\ude00`))
	require.Equal(t, http.StatusOK, ok.Status, "%s", ok.Raw)
	assert.Equal(t, "emoji-\U0001F600", ok.str("data", "transaction", "partner_trx_id"))
}

// TestStrictProvisionBodies: the provisioning body is read as strictly.
func TestStrictProvisionBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for name, body := range map[string]string{
		"duplicate phone_number": `{"name":"a","phone_number":"081299991111","email":"d1@toko.id","phone_number":"081299991112"}`,
		"wrong-case email":       `{"name":"a","phone_number":"081299991113","EMAIL":"d2@toko.id"}`,
		"lone surrogate name":    `{"name":"\udc00","phone_number":"081299991114","email":"d3@toko.id"}`,
	} {
		r := e.do(http.MethodPost, "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, body)
		assert.Equal(t, http.StatusBadRequest, r.Status, name)
		assert.Equal(t, "Format permintaan tidak valid.", r.message(), name)
	}
	for name, body := range map[string]string{
		"invisible name":    `{"name":"\u200b","phone_number":"081299991115","email":"d4@toko.id"}`,
		"control in name":   `{"name":"a\u0001","phone_number":"081299991116","email":"d5@toko.id"}`,
		"control in device": `{"name":"a","phone_number":"081299991117","email":"d6@toko.id","device_id":"x\u001b"}`,
	} {
		r := e.do(http.MethodPost, "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, body)
		assert.Equal(t, http.StatusBadRequest, r.Status, name)
		assert.Equal(t, "Data tidak lengkap.", r.message(), name)
	}
	r := e.do(http.MethodPost, "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":"Toko \u00e9","phone_number":"081299991118","email":"d7@toko.id"}`)
	assert.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
}

// stalledWriter is a client that stopped reading: every body write fails
// as a write timeout does.
type stalledWriter struct {
	header       http.Header
	writeHeaders int
}

func (s *stalledWriter) Header() http.Header { return s.header }
func (s *stalledWriter) WriteHeader(int)     { s.writeHeaders++ }
func (s *stalledWriter) Write([]byte) (int, error) {
	return 0, os.ErrDeadlineExceeded
}

// recordHandler keeps every log record.
type recordHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
	return nil
}
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordHandler) WithGroup(string) slog.Handler      { return h }

// TestStalledClientLoggedOnceAtDebug: a response write that fails after the
// status was sent is logged once at debug level, with no second
// WriteHeader and no ERROR.
func TestStalledClientLoggedOnceAtDebug(t *testing.T) {
	t.Parallel()
	for _, faults := range [][]reference.Fault{nil, {reference.FaultNoTrxIDLimit}} {
		store, _ := newTestStore(t, reference.WithFaults(faults...))
		logs := &recordHandler{}
		h := NewServer(slog.New(logs), store)
		req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/client/v2/payment/methods", nil)
		require.NoError(t, funded.edit(t.Context(), req))
		w := &stalledWriter{header: http.Header{}}
		h.ServeHTTP(w, req)
		assert.Equal(t, 1, w.writeHeaders, "WriteHeader calls (faults %v)", faults)
		failed := 0
		for _, r := range logs.records {
			assert.Less(t, r.Level, slog.LevelWarn, "%s (faults %v)", r.Message, faults)
			if r.Message == "response write failed" {
				failed++
			}
		}
		assert.Equal(t, 1, failed, "faults %v", faults)
	}
}

// TestHeaderLimit: a request whose headers exceed maxHeaderBytes is refused
// by net/http with 431 (default net/http reads up to 1 MiB of headers).
func TestHeaderLimit(t *testing.T) {
	t.Parallel()
	addr := serveHTTPServer(t)
	big := strings.Repeat("a", 100<<10)
	status, _, _ := rawExchange(t, addr, "GET /client/v2/payment/methods HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "+big+"\r\nConnection: close\r\n\r\n")
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, status)
	status, _, body := rawExchange(t, addr, "GET /client/v2/payment/methods HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "+big[:32<<10]+"\r\nConnection: close\r\n\r\n")
	assert.Equal(t, http.StatusUnauthorized, status, "%s", body)
}

// TestHeldConnectionsDoNotStarveOthers holds 200 connections that send
// unfinished 32 KiB headers; normal requests are still answered. RSS and
// latency under this flood are measured by the hardening script
// (make hardening), not here. Not parallel: the dials must not compete with
// the package's other tests on a busy machine.
func TestHeldConnectionsDoNotStarveOthers(t *testing.T) {
	addr := serveHTTPServer(t)
	partial := "GET /client/v2/payment/methods HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + strings.Repeat("a", 32<<10)
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	for range 200 {
		c, err := (&net.Dialer{Timeout: 20 * time.Second}).DialContext(t.Context(), "tcp", addr)
		require.NoError(t, err)
		conns = append(conns, c)
		_, err = io.WriteString(c, partial)
		require.NoError(t, err)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	for range 20 {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/client/v2/payment/methods", nil)
		require.NoError(t, err)
		require.NoError(t, funded.edit(t.Context(), req))
		resp, err := client.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}
}

// TestLimitListenerCapsConnections: with a cap of 2, a third client is not
// served while two connections are held, and is served once one closes.
func TestLimitListenerCapsConnections(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t)
	srv := NewHTTPServer(slog.New(slog.DiscardHandler), store)
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(LimitListener(ln, 2)) }()
	t.Cleanup(func() { _ = srv.Close() })
	addr := ln.Addr().String()
	var held []net.Conn
	for range 2 {
		c, err := (&net.Dialer{}).DialContext(t.Context(), "tcp", addr)
		require.NoError(t, err)
		_, err = io.WriteString(c, "GET / HTTP/1.1\r\n") // unfinished
		require.NoError(t, err)
		held = append(held, c)
	}
	get := func(timeout time.Duration) error {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/client/v2/payment/methods", nil)
		require.NoError(t, err)
		resp, err := (&http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		return err
	}
	require.Error(t, get(300*time.Millisecond), "a third connection was served over the cap")
	require.NoError(t, held[0].Close())
	require.NoError(t, get(5*time.Second), "a connection was not served after one closed")
	_ = held[1].Close()
}
