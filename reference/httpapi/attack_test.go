package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var hardening = flag.Bool("hardening", false, "run the loopback attack on a built reference server (make hardening)")

// TestHardeningAttack attacks a cmd/reference process on 127.0.0.1 the way
// a hostile client on the public network could, bounded in count and time: malformed requests on
// every endpoint (every answer JSON, no 5xx), header flooding (RSS bounded,
// normal requests answered), and 30,000 concurrent payments with same-id
// bursts (no negative balance, exact conservation, one success per id). It
// runs only with -hardening (make hardening) and prints its measurements.
func TestHardeningAttack(t *testing.T) {
	if !*hardening {
		t.Skip("the loopback attack runs with -hardening (make hardening)")
	}
	srv := startReferenceProcess(t)
	t.Run("malformed requests", func(t *testing.T) { attackMalformed(t, srv) })
	t.Run("protocol errors", func(t *testing.T) { attackProtocol(t, srv) })
	t.Run("header flood", func(t *testing.T) { attackHeaderFlood(t, srv) })
	t.Run("concurrent payments", func(t *testing.T) { attackPayments(t, srv) })
	srv.stop(t)
	assert.NotContains(t, srv.stderr.String(), "panic", "the server logged a panic")
	assert.NotContains(t, srv.stderr.String(), "level=ERROR", "the server logged an error")
}

type refProcess struct {
	cmd    *exec.Cmd
	addr   string
	base   string
	stderr *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startReferenceProcess builds cmd/reference and runs it on 127.0.0.1:0.
func startReferenceProcess(t *testing.T) *refProcess {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "reference")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "github.com/partnercommerce/conformance/cmd/reference")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // the attack's hard bound
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, "--addr", "127.0.0.1:0", "--log-level", "warn")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p := &refProcess{cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = p.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	p.base = strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	p.addr = strings.TrimPrefix(p.base, "http://")
	require.True(t, strings.HasPrefix(p.addr, "127.0.0.1:"), "not on loopback: %q", line)
	return p
}

func (p *refProcess) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, "graceful shutdown")
	case <-time.After(15 * time.Second):
		t.Error("the server did not stop within 15 s")
	}
}

// rssKiB reads the resident set size of a process.
func rssKiB(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

const (
	atkKey   = "sk-nusantara-7f3a9c"
	atkToken = "tok-nusantara-funded"
)

type atkRequest struct {
	method, target, contentType, body string
	header                            map[string]string
}

// malformedRequests are the hostile requests sent to every endpoint.
func malformedRequests() []atkRequest {
	endpoints := []struct{ method, path string }{
		{"GET", "/client/v2/product/list"}, {"GET", "/client/v2/product/sync"},
		{"GET", "/client/v2/customer/profile"}, {"POST", "/client/v2/customer/provision_account"},
		{"GET", "/client/v2/payment/methods"}, {"POST", "/client/v2/payment"}, {"GET", "/client/v2/payment/status"},
	}
	bodies := []string{
		``, `null`, `[]`, `"x"`, `1e400`, `{`, `{"product_id":`, `{"product_id":"1002"}`, `{"product_id":-1,"payment_method_id":-1}`,
		strings.Repeat("[", 10000), `{"partner_trx_id":"a","partner_trx_id":"b"}`, `{"PARTNER_TRX_ID":"x"}`,
		`{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"atk-m"} trailing`,
		`{"partner_trx_id":"\ud800"}`, "{\"partner_trx_id\":\"\xff\"}", `{"parts":` + strings.Repeat(`{"a":`, 500) + `1` + strings.Repeat(`}`, 500) + `}`,
		`{"name":"\u0000","phone_number":"0812","email":"x"}`, strings.Repeat(" ", 70<<10),
	}
	queries := []string{"", "?phone_number=%ff&sub_category=%00", "?sub_category=prabayar&page=99999999999999999999&pageSize=-1",
		"?sub_category=prabayar&page=1e3", "?partner_trx_id=&transaction_number=", "?partner_trx_id=" + strings.Repeat("x", 4000),
		"?a=%zz", "?sub_category=prabayar&sub_category=paket-data&phone_number=081234567890"}
	paths := func(p string) []string {
		i := strings.LastIndex(p, "/")
		return []string{p, p + "/", strings.Replace(p, "/client", "//client", 1), p[:i] + "%2F" + p[i+1:], strings.ToUpper(p),
			p + "%00", p + "/..", "/client/v2/../v2" + strings.TrimPrefix(p, "/client/v2"), p + "/" + strings.Repeat("a", 8000)}
	}
	var out []atkRequest
	for _, ep := range endpoints {
		for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "FOO"} {
			out = append(out, atkRequest{method: m, target: ep.path})
		}
		for _, p := range paths(ep.path) {
			out = append(out, atkRequest{method: ep.method, target: p})
		}
		for _, q := range queries {
			out = append(out, atkRequest{method: ep.method, target: ep.path + q})
		}
		for _, h := range []map[string]string{
			{"X-SECRET-KEY": ""}, {"X-SECRET-KEY": "nope"}, {"Authorization": "Bearer"}, {"Authorization": "Basic abc"},
			{"Authorization": "Bearer " + strings.Repeat("t", 8000)}, {"X-SECRET-KEY": "sk-warung-41d2e8"},
			{"Authorization": "bearer  " + atkToken}, {"Content-Length": "0"},
		} {
			out = append(out, atkRequest{method: ep.method, target: ep.path, header: h})
		}
		if ep.method == "POST" {
			for _, b := range bodies {
				for _, ct := range []string{"application/json", "text/plain", "application/json; charset=utf-16", ""} {
					out = append(out, atkRequest{method: "POST", target: ep.path, contentType: ct, body: b})
				}
			}
		}
	}
	return out
}

func attackMalformed(t *testing.T, srv *refProcess) {
	reqs := malformedRequests()
	client := &http.Client{Timeout: 10 * time.Second}
	statuses := map[int]int{}
	notJSON := 0
	for _, a := range reqs {
		u, err := url.Parse(srv.base + a.target)
		if err != nil {
			t.Fatalf("%s: %v", a.target, err)
		}
		req, err := http.NewRequestWithContext(t.Context(), a.method, u.String(), strings.NewReader(a.body))
		require.NoError(t, err)
		req.Header.Set("X-SECRET-KEY", atkKey)
		req.Header.Set("Authorization", "Bearer "+atkToken)
		if a.contentType != "" {
			req.Header.Set("Content-Type", a.contentType)
		}
		for k, v := range a.header {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		require.NoError(t, err, "%s %s", a.method, a.target)
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		_ = resp.Body.Close()
		statuses[resp.StatusCode]++
		if a.method == http.MethodHead {
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "HEAD %s", a.target)
			continue
		}
		var eb struct {
			Status  *bool   `json:"status"`
			Message *string `json:"message"`
		}
		if resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &eb) != nil || eb.Status == nil || eb.Message == nil {
			notJSON++
			t.Errorf("%s %s (%q): %d %q %s", a.method, a.target, a.contentType, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		assert.Less(t, resp.StatusCode, 500, "%s %s: %s", a.method, a.target, body)
	}
	t.Logf("malformed requests: %d sent, status codes %v, %d not JSON", len(reqs), statuses, notJSON)
}

// attackProtocol sends requests net/http refuses itself: they must be
// answered with the documented codes (docs/reference-choices.md), never
// reach the handler, and never crash the server.
func attackProtocol(t *testing.T, srv *refProcess) {
	cases := map[string]int{
		"GET / HTTP/2.0\r\nHost: x\r\n\r\n":                                                   http.StatusHTTPVersionNotSupported,
		"GET / HTTP/9.9\r\nHost: x\r\n\r\n":                                                   http.StatusHTTPVersionNotSupported,
		"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n":                                                http.StatusBadRequest,
		"GET / HTTP/1.1\r\n\r\n":                                                              http.StatusBadRequest,
		"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n":                                        http.StatusBadRequest,
		"GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n":                                  http.StatusBadRequest,
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n":        http.StatusBadRequest,
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n":                       http.StatusNotImplemented,
		"GET / HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n":                                    http.StatusExpectationFailed,
		"GET / HTTP/1.1\r\nHost: x\r\nX: " + strings.Repeat("a", 70<<10) + "\r\n\r\n":         http.StatusRequestHeaderFieldsTooLarge,
		"GET /client/v2/payment/methods HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n":     http.StatusUnauthorized,
		"OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n":                          http.StatusNotFound,
		"GET /client/v2/payment%2Fstatus HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n":    http.StatusNotFound,
		"POST /client/v2/payment HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n{": http.StatusUnauthorized,
	}
	for raw, want := range cases {
		conn, err := (&net.Dialer{Timeout: 2 * time.Second}).DialContext(t.Context(), "tcp", srv.addr)
		require.NoError(t, err)
		require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = io.WriteString(conn, raw)
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if assert.NoError(t, err, "%.60q", raw) {
			assert.Equal(t, want, resp.StatusCode, "%.60q", raw)
			_ = resp.Body.Close()
		}
		_ = conn.Close()
	}
	t.Logf("protocol errors: %d raw requests answered with the documented codes", len(cases))
}

func attackHeaderFlood(t *testing.T, srv *refProcess) {
	const conns = 600
	pid := srv.cmd.Process.Pid
	before := rssKiB(t, pid)
	partial := "GET /client/v2/payment/methods HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 60<<10)
	var held []net.Conn
	defer func() {
		for _, c := range held {
			_ = c.Close()
		}
	}()
	for range conns {
		c, err := (&net.Dialer{Timeout: 2 * time.Second}).DialContext(t.Context(), "tcp", srv.addr)
		require.NoError(t, err)
		held = append(held, c)
		_, err = io.WriteString(c, partial)
		require.NoError(t, err)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	var lat []time.Duration
	peak := rssKiB(t, pid)
	for range 100 {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.base+"/client/v2/payment/methods", nil)
		require.NoError(t, err)
		req.Header.Set("X-SECRET-KEY", atkKey)
		req.Header.Set("Authorization", "Bearer "+atkToken)
		start := time.Now()
		resp, err := client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		lat = append(lat, time.Since(start))
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		peak = max(peak, rssKiB(t, pid))
	}
	slices.Sort(lat)
	median, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	t.Logf("header flood: %d connections holding 60 KiB unfinished headers; RSS %d MiB before, %d MiB peak; normal requests median %v, p99 %v",
		conns, before>>10, peak>>10, median, p99)
	assert.Less(t, peak, int64(300<<10), "RSS under header flooding (KiB)")
	assert.Less(t, median, 50*time.Millisecond, "median latency of normal requests under header flooding")
}

// payAnswer is the answer to one payment of attackPayments.
type payAnswer struct {
	account int
	trxID   string
	status  int
	balance int64
	coins   int64
	err     error
}

// payJob is one payment to send: from which account, with which id.
type payJob struct {
	account int
	trxID   string
}

// The payments of attackPayments: unique ids, then bursts of one id sent
// several times at once.
const attackUnique, attackBursts, attackBurst = 24000, 1200, 5

// attackTokens are the accounts attackPayments pays from; the last one
// runs out of funds.
var attackTokens = []string{"tok-nusantara-load-1", "tok-nusantara-load-2", "tok-nusantara-load-3", "tok-nusantara-load-4", "tok-nusantara-split"}

// attackPayments pays from 64 workers at once, unique ids and bursts of
// one id, and checks that no id succeeds twice, no answer is a 5xx, and
// what the wallets lost is what the successes spent.
func attackPayments(t *testing.T, srv *refProcess) {
	before := attackWallets(t, srv.base)
	var jobs []payJob
	for i := range attackUnique {
		jobs = append(jobs, payJob{i % len(attackTokens), fmt.Sprintf("atk-u-%d", i)})
	}
	for i := range attackBursts {
		for range attackBurst {
			jobs = append(jobs, payJob{i % len(attackTokens), fmt.Sprintf("atk-b-%d", i)})
		}
	}
	start := time.Now()
	answers := sendPayments(t, srv.base, jobs)
	elapsed := time.Since(start)
	after := attackWallets(t, srv.base)

	spent := make([][2]int64, len(attackTokens))
	successes := map[string]int{}
	statuses := map[int]int{}
	transport := 0
	for _, a := range answers {
		if a.err != nil {
			transport++
			continue
		}
		statuses[a.status]++
		if a.status == http.StatusOK {
			successes[a.trxID]++
			spent[a.account][0] += a.balance
			spent[a.account][1] += a.coins
		}
	}
	assert.Zero(t, transport, "transport errors")
	for code := range statuses {
		assert.Less(t, code, 500, "a 5xx answer")
	}
	checkPaidOnce(t, successes)
	for i, tok := range attackTokens {
		assert.GreaterOrEqual(t, after[i][0], int64(0), "negative balance of %s", tok)
		assert.GreaterOrEqual(t, after[i][1], int64(0), "negative coins of %s", tok)
		assert.Equal(t, before[i][0]-after[i][0], spent[i][0], "balance conservation of %s", tok)
		assert.Equal(t, before[i][1]-after[i][1], spent[i][1], "coin conservation of %s", tok)
	}
	t.Logf("concurrent payments: %d sent by 64 workers in %v (%.0f/s), status codes %v, %d distinct ids paid, %d transport errors",
		len(jobs), elapsed.Round(time.Millisecond), float64(len(jobs))/elapsed.Seconds(), statuses, len(successes), transport)
}

// checkPaidOnce checks that no id succeeded twice and that each burst of
// an account with funds succeeded once.
func checkPaidOnce(t *testing.T, successes map[string]int) {
	t.Helper()
	for id, n := range successes {
		assert.Equal(t, 1, n, "successes of %s", id)
	}
	for i := range attackBursts {
		if i%len(attackTokens) != len(attackTokens)-1 { // the split account runs out of funds: 422, never a second success
			assert.Equal(t, 1, successes[fmt.Sprintf("atk-b-%d", i)], "one success in burst %d", i)
		}
	}
}

// attackWallets reads the balance and coins of each of attackTokens.
func attackWallets(t *testing.T, base string) [][2]int64 {
	t.Helper()
	out := make([][2]int64, len(attackTokens))
	for i, tok := range attackTokens {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/client/v2/customer/profile", nil)
		require.NoError(t, err)
		req.Header.Set("X-SECRET-KEY", atkKey)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var p struct {
			Data struct {
				Balance struct{ Available int64 }
				Coin    struct{ Available int64 }
			}
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&p))
		_ = resp.Body.Close()
		out[i] = [2]int64{p.Data.Balance.Available, p.Data.Coin.Available}
	}
	return out
}

// sendPayments sends jobs from 64 workers at once and returns every answer.
func sendPayments(t *testing.T, base string, jobs []payJob) []payAnswer {
	tr := &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Timeout: 30 * time.Second, Transport: tr}
	queue := make(chan payJob)
	answers := make(chan payAnswer, len(jobs))
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for j := range queue {
				answers <- pay(t.Context(), client, base, j)
			}
		})
	}
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	wg.Wait()
	close(answers)
	out := make([]payAnswer, 0, len(jobs))
	for a := range answers {
		out = append(out, a)
	}
	return out
}

// pay sends one payment of attackPayments and reads what it spent.
func pay(ctx context.Context, client *http.Client, base string, j payJob) payAnswer {
	body := fmt.Sprintf(`{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"use_coin":true,"partner_trx_id":%q}`, j.trxID)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/client/v2/payment", strings.NewReader(body))
	if err != nil {
		return payAnswer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SECRET-KEY", atkKey)
	req.Header.Set("Authorization", "Bearer "+attackTokens[j.account])
	resp, err := client.Do(req)
	if err != nil {
		return payAnswer{account: j.account, trxID: j.trxID, err: err}
	}
	var r struct {
		Data struct {
			Transaction struct {
				Amount struct {
					BalanceUsed int64 `json:"balance_used"`
					CoinUsed    int64 `json:"coin_used"`
				}
			}
		}
	}
	_ = json.NewDecoder(resp.Body).Decode(&r)
	_ = resp.Body.Close()
	return payAnswer{account: j.account, trxID: j.trxID, status: resp.StatusCode,
		balance: r.Data.Transaction.Amount.BalanceUsed, coins: r.Data.Transaction.Amount.CoinUsed}
}
