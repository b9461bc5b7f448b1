package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// metricsServer serves --metrics-addr's /metrics beside the API, on its
// own listener so that the API's paths stay the document's. Its methods
// do nothing on a nil server (the flag not given).
type metricsServer struct {
	m    *httpapi.Metrics
	srv  *http.Server
	done chan error
}

// startMetrics serves the metrics on addr; nil when addr is "". It prints
// "metrics on http://ADDR/metrics" to stdout once the listener is bound.
func startMetrics(ctx context.Context, addr string, logger *slog.Logger, stdout io.Writer) (*metricsServer, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	s := &metricsServer{m: httpapi.NewMetrics(), done: make(chan error, 1)}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.m.Handler())
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	go func() { s.done <- s.srv.Serve(ln) }()
	logger.Info("metrics", "addr", ln.Addr().String())
	fmt.Fprintf(stdout, "metrics on http://%s/metrics\n", ln.Addr())
	return s, nil
}

// options are the store's options the metrics need: the journal's
// commits.
func (s *metricsServer) options() []reference.Option {
	if s == nil {
		return nil
	}
	return []reference.Option{reference.WithCommitObserver(s.m.Commit)}
}

// count wraps the API's handler, counting its requests.
func (s *metricsServer) count(h http.Handler) http.Handler {
	if s == nil {
		return h
	}
	return s.m.Count(h)
}

// close stops serving the metrics.
func (s *metricsServer) close() error {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
