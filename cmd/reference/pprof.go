package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/partnercommerce/conformance/internal/side"
)

// startPprof serves --pprof-addr's Go profiles (net/http/pprof) on their
// own listener, so that a performance engineer can profile the server under
// load (docs/performance.md says how) without a build of its own; nil when
// addr is "". It prints "pprof on http://ADDR/debug/pprof/" to stdout once
// the listener is bound.
func startPprof(ctx context.Context, addr string, logger *slog.Logger, stdout io.Writer) (*side.Server, error) {
	if addr == "" {
		return nil, nil
	}
	s, err := side.Listen(ctx, addr, side.Profiles(), sideLog(logger))
	if err != nil {
		return nil, fmt.Errorf("--pprof-addr: %w", err)
	}
	logger.Warn("pprof: the server's profiles are served to anyone who reaches this address", "addr", s.Addr())
	fmt.Fprintf(stdout, "pprof on http://%s/debug/pprof/\n", s.Addr())
	return s, nil
}
