package perf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Client sends payments with unique partner_trx_ids to a server for a
// while and counts the answers.
type Client interface {
	Name() string
	Run(ctx context.Context, url string, d time.Duration) (Rate, error)
}

// Rate is what a client measured in one window.
type Rate struct {
	Requests int64   // answers received
	Failed   int64   // answers other than 200, and transport errors
	Seconds  float64 // the window
}

// PerSecond is the answers received per second.
func (r Rate) PerSecond() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Seconds
}

// check turns failed answers into an error: a ratio taken from refused
// payments would measure the refusal path, not payment creation.
func (r Rate) check(server string) error {
	if r.Requests == 0 {
		return fmt.Errorf("%s answered no request", server)
	}
	if r.Failed > 0 {
		return fmt.Errorf("%s: %d of %d answers were not 200", server, r.Failed, r.Requests)
	}
	return nil
}

// Wrk drives wrk (https://github.com/wg/wrk) with a Lua script that makes
// every partner_trx_id unique.
type Wrk struct {
	Path        string // the wrk binary
	Threads     int
	Connections int
}

// FindWrk returns wrk when it is on PATH.
func FindWrk(threads, conns int) (*Wrk, bool) {
	p, err := exec.LookPath("wrk")
	if err != nil {
		return nil, false
	}
	return &Wrk{Path: p, Threads: threads, Connections: conns}, true
}

func (w *Wrk) Name() string {
	return fmt.Sprintf("wrk, %d %s, %d connections", w.Threads, plural(w.Threads, "thread"), w.Connections)
}

// wrkScript posts the perf payment with ids unique across runs (the run's
// nonce is the script's argument), threads and requests.
const wrkScript = `local counter = 0
local prefix = "perf-"
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-SECRET-KEY"] = "%s"
wrk.headers["Authorization"] = "Bearer %s"
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
function init(args)
  prefix = "perf-" .. args[1] .. "-" .. tostring(tid or 0) .. "-"
end
request = function()
  counter = counter + 1
  return wrk.format(nil, "%s", nil, '%s' .. prefix .. counter .. '%s')
end
`

func (w *Wrk) script() string {
	head, rest, _ := strings.Cut(paymentBody("\x00"), "\x00")
	return fmt.Sprintf(wrkScript, paymentSecret, paymentToken, paymentPath, head, rest)
}

func (w *Wrk) Run(ctx context.Context, url string, d time.Duration) (Rate, error) {
	dir, err := os.MkdirTemp("", "perf-wrk-")
	if err != nil {
		return Rate{}, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	script := filepath.Join(dir, "payment.lua")
	if err := os.WriteFile(script, []byte(w.script()), 0o600); err != nil {
		return Rate{}, err
	}
	secs := max(1, int(d.Round(time.Second)/time.Second))
	cmd := exec.CommandContext(ctx, w.Path, "-t", strconv.Itoa(w.Threads), "-c", strconv.Itoa(w.Connections), //nolint:gosec // wrk, found on PATH
		"-d", strconv.Itoa(secs)+"s", "--timeout", "5s", "-s", script, url, "--", strconv.FormatInt(time.Now().UnixNano(), 36))
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return Rate{}, fmt.Errorf("wrk: %w: %s", err, out)
	}
	r, err := parseWrk(out)
	if err != nil {
		return Rate{}, fmt.Errorf("wrk: %w: %s", err, out)
	}
	r.Seconds = float64(secs)
	return r, nil
}

var (
	wrkTotal  = regexp.MustCompile(`(?m)^\s*(\d+) requests in ([0-9.]+)(us|ms|s|m)`)
	wrkNon2xx = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses: (\d+)`)
	wrkSocket = regexp.MustCompile(`(?m)^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// parseWrk reads the request count and the failures of wrk's summary. Its
// "Requests/sec" divides by the time wrk ran, which includes connecting;
// the count over the nominal window is the figure both servers share.
func parseWrk(out []byte) (Rate, error) {
	m := wrkTotal.FindSubmatch(out)
	if m == nil {
		return Rate{}, errors.New("no request count in the output")
	}
	var r Rate
	r.Requests, _ = strconv.ParseInt(string(m[1]), 10, 64)
	if m := wrkNon2xx.FindSubmatch(out); m != nil {
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		r.Failed += n
	}
	if m := wrkSocket.FindSubmatch(out); m != nil {
		for _, g := range m[1:] {
			n, _ := strconv.ParseInt(string(g), 10, 64)
			r.Failed += n
		}
	}
	return r, nil
}

// GoClient posts payments from Connections goroutines, each with its own
// keep-alive connection; it is the client when wrk is not installed, and the
// one that fills the reference with payments.
type GoClient struct {
	Connections int
	Prefix      string // of the partner_trx_ids; unique per server process
	seq         atomic.Int64
	once        sync.Once
	http        *http.Client
}

func (c *GoClient) Name() string {
	return fmt.Sprintf("Go client, %d connections", c.Connections)
}

func (c *GoClient) client() *http.Client {
	c.once.Do(func() {
		c.http = &http.Client{
			Timeout: 5 * time.Second,
			Transport: &http.Transport{
				MaxIdleConnsPerHost: c.Connections, MaxConnsPerHost: c.Connections,
				DisableCompression: true,
			},
		}
	})
	return c.http
}

// Run posts for d.
func (c *GoClient) Run(ctx context.Context, url string, d time.Duration) (Rate, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	r := c.post(ctx, url, -1)
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// Send posts n payments (all of them unless ctx ends first).
func (c *GoClient) Send(ctx context.Context, url string, n int64) Rate {
	start := time.Now()
	r := c.post(ctx, url, n)
	r.Seconds = time.Since(start).Seconds()
	return r
}

// post sends until ctx ends or, with n >= 0, n requests are sent.
func (c *GoClient) post(ctx context.Context, url string, n int64) Rate {
	var ok, failed, taken atomic.Int64
	var wg sync.WaitGroup
	cl := c.client()
	for range max(1, c.Connections) {
		wg.Go(func() {
			for ctx.Err() == nil {
				if n >= 0 && taken.Add(1) > n {
					return
				}
				id := c.Prefix + strconv.FormatInt(c.seq.Add(1), 10)
				switch err := postPayment(ctx, cl, url, id); {
				case err == nil:
					ok.Add(1)
				case ctx.Err() != nil: // cut by the end of the window: not an answer
				default:
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return Rate{Requests: ok.Load() + failed.Load(), Failed: failed.Load()}
}

func postPayment(ctx context.Context, cl *http.Client, url, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+paymentPath, strings.NewReader(paymentBody(id)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SECRET-KEY", paymentSecret)
	req.Header.Set("Authorization", "Bearer "+paymentToken)
	resp, err := cl.Do(req)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	_, err = io.Copy(&buf, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %.200s", resp.StatusCode, buf.Bytes())
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
