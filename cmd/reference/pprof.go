package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/pprof"
)

// startPprof serves --pprof-addr's Go profiles (net/http/pprof) on their
// own listener, so that a performance engineer can profile the server under
// load (docs/performance.md says how) without a build of its own; nil when
// addr is "". It prints "pprof on http://ADDR/debug/pprof/" to stdout once
// the listener is bound.
func startPprof(ctx context.Context, addr string, logger *slog.Logger, stdout io.Writer) (*sideServer, error) {
	if addr == "" {
		return nil, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	s, bound, err := startSide(ctx, "--pprof-addr", addr, mux, logger)
	if err != nil {
		return nil, err
	}
	logger.Warn("pprof: the server's profiles are served to anyone who reaches this address", "addr", bound.String())
	fmt.Fprintf(stdout, "pprof on http://%s/debug/pprof/\n", bound)
	return s, nil
}
