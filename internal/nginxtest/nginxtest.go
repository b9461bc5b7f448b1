// Package nginxtest starts a real nginx for tests (Debian's nginx package;
// a test without one is skipped, saying why), as a gateway in front of an
// API on loopback: it throttles with nginx's own limit_req (its default
// answer: 503 Service Temporarily Unavailable, an HTML page, no
// Retry-After), serves HTTPS and requires a client certificate (without
// one, nginx completes the handshake and answers 400 "No required SSL
// certificate was sent" in HTML), or wants a header of its own (403
// Forbidden in HTML). It runs in the foreground, one process, with its
// configuration, temporary files and log in a temporary directory of the
// test, and stops with the test.
package nginxtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvNginx names the nginx executable, overriding the search.
const EnvNginx = "CONFORMANCE_NGINX"

// debianNginx is where Debian's package installs nginx, which is not on
// the PATH of a user without /usr/sbin.
const debianNginx = "/usr/sbin/nginx"

// Bin is nginx's executable; the test is skipped when there is none.
func Bin(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv(EnvNginx); p != "" {
		return p
	}
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat(debianNginx); err == nil {
		return debianNginx
	}
	tb.Skip("no nginx found ($" + EnvNginx + ", nginx on PATH, or " + debianNginx + "; Debian's nginx package): the test against a real gateway did not run")
	return ""
}

// Config is the gateway a test wants in front of Upstream.
type Config struct {
	// Upstream is the base URL of the API behind the gateway
	// (http://127.0.0.1:PORT): every request is passed to it.
	Upstream string
	// Rate, when above 0, limits each client address to Rate requests a
	// second (limit_req, with Burst requests over it let through at once):
	// past it nginx answers its default page, 503 Service Temporarily
	// Unavailable in HTML, without Retry-After.
	Rate, Burst int
	// CertFile and KeyFile, when set, serve HTTPS with that certificate
	// (tlstest makes them).
	CertFile, KeyFile string
	// ClientCA, with CertFile, requires of every client a certificate
	// signed by the CA of this PEM file (ssl_verify_client on): without
	// one nginx answers 400 "No required SSL certificate was sent".
	ClientCA string
	// HeaderName and HeaderValue, when set, are a header every request
	// must carry: without it nginx answers 403 Forbidden.
	HeaderName, HeaderValue string
	// RetryAfter, with Rate, adds Retry-After: RetryAfter (seconds) to the
	// 503 of limit_req: a throttle the client is told to wait out, not a
	// page.
	RetryAfter int
	// Gzip compresses the API's JSON for a client that asks for it
	// (gzip on, whatever its length).
	Gzip bool
}

// Gateway is an nginx started for one test.
type Gateway struct {
	// URL is the gateway's base URL: http://127.0.0.1:PORT, or https://.
	URL     string
	logPath string
}

// Start starts nginx in front of c.Upstream on a free loopback port and
// returns once it accepts connections. It stops with the test; when the
// test failed, its error log is logged.
func Start(tb testing.TB, c Config) *Gateway {
	tb.Helper()
	bin := Bin(tb)
	up, err := url.Parse(c.Upstream)
	if err != nil || up.Host == "" {
		tb.Fatalf("nginxtest: upstream %q: want http://HOST:PORT", c.Upstream)
	}
	dir := tb.TempDir()
	addr := freeAddr(tb)
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(c.config(dir, addr, up.Host)), 0o600); err != nil {
		tb.Fatal(err)
	}
	g := &Gateway{URL: "http://" + addr, logPath: filepath.Join(dir, "error.log")}
	if c.CertFile != "" {
		g.URL = "https://" + addr
	}
	log, err := os.Create(g.logPath)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-p", dir, "-c", conf, "-e", "stderr")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // nginx stops at once on SIGINT
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		tb.Fatalf("nginxtest: %v", err)
	}
	exited := make(chan struct{})
	var once sync.Once
	wait := func() { once.Do(func() { _ = cmd.Wait(); close(exited) }) } // its exit status after the signal says nothing
	go wait()
	tb.Cleanup(func() {
		cancel()
		wait()
		_ = log.Close() // written by nginx only
		if tb.Failed() {
			tb.Logf("nginx error log:\n%s", g.Log())
		}
	})
	if err := ready(addr, exited); err != nil {
		tb.Fatalf("nginxtest: %v; its log:\n%s", err, g.Log())
	}
	return g
}

// Log is nginx's error log so far.
func (g *Gateway) Log() string {
	b, _ := os.ReadFile(g.logPath) // best effort: the log helps, a failure stands without it
	return string(b)
}

// ready waits until addr accepts connections, or nginx exited, or 10 s
// have passed.
func ready(addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-exited:
			return fmt.Errorf("nginx exited before it listened on %s", addr)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		cancel()
		if err == nil {
			_ = conn.Close() // only whether it accepts
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nginx did not listen on %s within 10s: %w", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freeAddr is a free loopback address: nginx takes no port 0, so one is
// picked and released for it to take.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		tb.Fatal(err)
	}
	return addr
}

// config is nginx's configuration: one process in the foreground, every
// file it writes in dir, one server on addr passing every request to
// upstream (host:port) as c says.
func (c Config) config(dir, addr, upstream string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `daemon off;
master_process off;
worker_processes 1;
pid "%[1]s/nginx.pid";
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path "%[1]s/body";
  proxy_temp_path "%[1]s/proxy";
  fastcgi_temp_path "%[1]s/fastcgi";
  uwsgi_temp_path "%[1]s/uwsgi";
  scgi_temp_path "%[1]s/scgi";
  upstream api {
    server %[2]s;
    keepalive 64;
  }
`, dir, upstream)
	if c.Rate > 0 {
		fmt.Fprintf(&b, "  limit_req_zone $binary_remote_addr zone=api:1m rate=%dr/s;\n", c.Rate)
	}
	if c.Gzip {
		b.WriteString("  gzip on;\n  gzip_types application/json;\n  gzip_min_length 0;\n  gzip_proxied any;\n")
	}
	b.WriteString("  server {\n")
	if c.Rate > 0 && c.RetryAfter > 0 {
		fmt.Fprintf(&b, "    error_page 503 @throttled;\n    location @throttled {\n      add_header Retry-After %d always;\n      return 503;\n    }\n", c.RetryAfter)
	}
	if c.CertFile != "" {
		fmt.Fprintf(&b, "    listen %s ssl;\n    ssl_certificate %q;\n    ssl_certificate_key %q;\n", addr, c.CertFile, c.KeyFile)
		if c.ClientCA != "" {
			fmt.Fprintf(&b, "    ssl_client_certificate %q;\n    ssl_verify_client on;\n", c.ClientCA)
		}
	} else {
		fmt.Fprintf(&b, "    listen %s;\n", addr)
	}
	b.WriteString("    location / {\n")
	switch {
	case c.Rate > 0 && c.Burst > 0:
		fmt.Fprintf(&b, "      limit_req zone=api burst=%d nodelay;\n", c.Burst)
	case c.Rate > 0:
		b.WriteString("      limit_req zone=api;\n")
	}
	if c.HeaderName != "" {
		fmt.Fprintf(&b, "      if ($http_%s != %q) { return 403; }\n", strings.ToLower(strings.ReplaceAll(c.HeaderName, "-", "_")), c.HeaderValue)
	}
	b.WriteString(`      proxy_pass http://api;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
    }
  }
}
`)
	return b.String()
}

// Throttle is next behind an imitation of nginx throttling the requests
// whose path is one of paths: each is answered as nginx's limit_req
// answers, 503 Service Temporarily Unavailable with its HTML page, its
// Server header and no Retry-After. It is for tests that need a gateway's
// answer to some requests, always the same ones, without a real nginx (the
// tests of Start's gateway hold the imitation to the real page).
func Throttle(next http.Handler, paths ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !slices.Contains(paths, r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Server", "nginx/1.22.1")
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, Page503)
	})
}

// Page503 is the page nginx 1.22 answers a request over its limit_req with.
const Page503 = "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n" +
	"<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n"
