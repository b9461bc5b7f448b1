package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"time"

	"github.com/partnercommerce/conformance/internal/side"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// metricsServer serves --metrics-addr's /metrics beside the API, on its
// own listener so that the API's paths stay the document's. Its methods
// do nothing on a nil server (the flag not given).
type metricsServer struct {
	m    *httpapi.Metrics
	side *side.Server
}

// startMetrics serves the metrics on addr; nil when addr is "". It prints
// "metrics on http://ADDR/metrics" to stdout once the listener is bound.
func startMetrics(ctx context.Context, addr string, logger *slog.Logger, stdout io.Writer) (*metricsServer, error) {
	if addr == "" {
		return nil, nil
	}
	s := &metricsServer{m: httpapi.NewMetrics()}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.m.Handler())
	srv, err := side.Listen(ctx, addr, mux, sideLog(logger))
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	s.side = srv
	logger.Info("metrics", "addr", srv.Addr())
	fmt.Fprintf(stdout, "metrics on http://%s/metrics\n", srv.Addr())
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
	return closeSide(s.side)
}

// sideLog is where a side server's own errors go: the server's log, as
// warnings.
func sideLog(logger *slog.Logger) *log.Logger {
	return slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
}

// closeSide stops a side server, giving the requests under way five
// seconds.
func closeSide(s *side.Server) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.Close(ctx)
}
