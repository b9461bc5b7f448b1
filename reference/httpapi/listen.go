package httpapi

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"

	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/reference"
)

// maxHeaderBytes bounds the request line and headers a connection may
// send: net/http answers more with 431, so a connection holds at most this
// much header memory.
const maxHeaderBytes = 64 << 10

// DefaultMaxConns is the default cap on concurrent connections (see
// LimitListener).
const DefaultMaxConns = 1024

// NewHTTPServer wraps NewServer in an http.Server with the reference's
// timeouts, so that a slow or silent client cannot hold a connection open,
// and maxHeaderBytes. "OPTIONS *" reaches the handler, which answers it in
// JSON like every other request. The body limit is NewServer's own.
func NewHTTPServer(logger *slog.Logger, store *reference.Store) *http.Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &http.Server{
		Handler:                      NewServer(logger, store),
		ReadHeaderTimeout:            5 * time.Second,
		ReadTimeout:                  15 * time.Second,
		WriteTimeout:                 30 * time.Second,
		IdleTimeout:                  120 * time.Second,
		MaxHeaderBytes:               maxHeaderBytes,
		DisableGeneralOptionsHandler: true,
		ErrorLog:                     slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// ServerTLS is the TLS configuration of a reference serving HTTPS with the
// certificate and key of certFile and keyFile (PEM): TLS 1.2 and later,
// with the standard library's cipher suites. With clientCAFile, every
// client must present a certificate signed by one of its CAs (mutual TLS);
// a client without one, or with another, is refused during the handshake.
func ServerTLS(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s --tls-key %s: %w", certFile, keyFile, err)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}}
	if clientCAFile != "" {
		if cfg.ClientCAs, err = transport.CertPool(clientCAFile); err != nil {
			return nil, fmt.Errorf("--client-ca %s: %w", clientCAFile, err)
		}
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// LimitListener caps the connections ln accepts at once at n (n < 1 means
// DefaultMaxConns); a further client waits in the listen backlog until one
// closes. With maxHeaderBytes it bounds the memory hostile clients can
// hold.
func LimitListener(ln net.Listener, n int) net.Listener {
	if n < 1 {
		n = DefaultMaxConns
	}
	return netutil.LimitListener(ln, n)
}

// ServeLoopback serves the embedded data set on a free 127.0.0.1 port until
// stop is called, for the runners that test the reference in-process. It
// returns the base URL.
func ServeLoopback(ctx context.Context, logger *slog.Logger, opts ...reference.Option) (baseURL string, stop func(), err error) {
	ds, err := reference.DefaultDataset()
	if err != nil {
		return "", nil, err
	}
	store, err := reference.NewStore(ds, opts...)
	if err != nil {
		return "", nil, err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := NewHTTPServer(logger, store)
	ln = LimitListener(ln, DefaultMaxConns)
	go func() { _ = srv.Serve(ln) }() // ends with http.ErrServerClosed on stop
	stop = func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}
