package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/partnercommerce/conformance/loadtest/live"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
)

// startLive serves the live metrics of a run with settings s and
// thresholds ths on s.PrometheusAddr (--prometheus-addr) until stop is
// called; no metrics (nil) when it is "".
func startLive(ctx context.Context, s *record.Settings, ths []report.Threshold, stderr io.Writer) (m *live.Metrics, stop func(), err error) {
	stop = func() {}
	if s.PrometheusAddr == "" {
		return nil, stop, nil
	}
	if m, err = live.New(s.LateAfter, ths); err != nil {
		return nil, stop, err
	}
	srv, err := live.Serve(ctx, s.PrometheusAddr, m)
	if err != nil {
		return nil, stop, fmt.Errorf("--prometheus-addr: %w", err)
	}
	fmt.Fprintf(stderr, "loadtest: live metrics on http://%s/metrics\n", srv.Addr())
	return m, func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Close(ctx) // the report is written: a scrape cut short loses nothing
	}, nil
}
