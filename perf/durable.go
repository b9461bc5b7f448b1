package perf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// goalDurableRatio is the payment rate of the reference with --state over
// its rate in memory, at 16 connections and more.
const goalDurableRatio = 0.6

// DurableConfig is the durable ratio: payment creation on the reference
// with --state (a fresh state directory each round) over the reference in
// memory, both measured by one client in alternating rounds.
type DurableConfig struct {
	Client      Client
	Connections int      // the client's, for the report
	Reference   Launcher // started as is for memory, with --state DIR appended for the durable side
	Rounds      int
	Window      time.Duration // measured per server per round
	Warmup      time.Duration // sent to each fresh server before its window
	Log         func(format string, args ...any)
}

// DurableResult holds the rates of each side, their ratio and the journal's
// bytes per payment, per round.
type DurableResult struct {
	Connections     int
	Memory, Durable Rounds // answers per second
	Ratio           Rounds // durable / memory, per round
	DiskBytes       Rounds // journal bytes per payment answered (warm-up and window)
}

// journalName is the journal's file name in a state directory
// (reference.JournalName; perf measures the binary and imports no part of
// it).
const journalName = "journal"

// Durable runs the rounds: memory first in odd rounds, durable first in
// even ones.
func Durable(ctx context.Context, cfg DurableConfig) (DurableResult, error) {
	res := DurableResult{Connections: cfg.Connections}
	for round := range cfg.Rounds {
		sides := []bool{false, true} // durable?
		if round%2 == 1 {
			slices.Reverse(sides)
		}
		for _, durable := range sides {
			if !durable {
				r, err := measure(ctx, cfg.Reference, cfg.Client, cfg.Warmup, cfg.Window)
				if err != nil {
					return res, fmt.Errorf("round %d: %w", round+1, err)
				}
				res.Memory.Values = append(res.Memory.Values, r.PerSecond())
				logf(cfg.Log, "round %d: %s %.0f payments/s", round+1, "in memory", r.PerSecond())
				continue
			}
			rate, perPayment, err := measureDurable(ctx, cfg)
			if err != nil {
				return res, fmt.Errorf("round %d: %w", round+1, err)
			}
			res.Durable.Values = append(res.Durable.Values, rate)
			res.DiskBytes.Values = append(res.DiskBytes.Values, perPayment)
			logf(cfg.Log, "round %d: %s %.0f payments/s, %.0f B on disk per payment", round+1, "with --state", rate, perPayment)
		}
		res.Ratio.Values = append(res.Ratio.Values, res.Durable.Values[round]/res.Memory.Values[round])
	}
	return res, nil
}

// measureDurable measures the reference over a fresh state directory: the
// window's rate, and the journal's length after the server stopped over
// every payment answered.
func measureDurable(ctx context.Context, cfg DurableConfig) (float64, float64, error) {
	dir, err := os.MkdirTemp("", "perf-state-")
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	l := cfg.Reference
	l.Name = "reference --state"
	l.Argv = append(slices.Clone(l.Argv), "--state", filepath.Join(dir, "state"))
	p, err := l.Start(ctx)
	if err != nil {
		return 0, 0, err
	}
	var answered int64
	var window Rate
	if cfg.Warmup > 0 {
		var warm Rate
		warm, err = cfg.Client.Run(ctx, p.URL, cfg.Warmup)
		answered += warm.Requests
	}
	if err == nil {
		window, err = cfg.Client.Run(ctx, p.URL, cfg.Window)
		answered += window.Requests
	}
	if err == nil {
		err = window.check(l.Name)
	}
	if serr := p.Stop(); err == nil {
		err = serr
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", l.Name, err)
	}
	used, err := journalUsed(filepath.Join(dir, "state", journalName))
	if err != nil {
		return 0, 0, err
	}
	return window.PerSecond(), float64(used) / float64(answered), nil
}

// journalUsed is the length of the journal at path up to its last non-zero
// byte: the rest is the zeros it preallocates for its next frames.
func journalUsed(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return int64(len(bytes.TrimRight(data, "\x00"))), nil
}

// WriteRows writes the durable ratio's rows of the table.
func (r DurableResult) WriteRows(w io.Writer) {
	lo, hi := r.Ratio.Range()
	fmt.Fprintf(w, "| POST payment, reference --state / in memory, %d connections | %.2f | %d %s, %.2f to %.2f; median %.0f/s against %.0f/s; every payment fdatasynced before its answer | at least %.2f | %s |\n",
		r.Connections, r.Ratio.Median(), len(r.Ratio.Values), plural(len(r.Ratio.Values), "round"), lo, hi, r.Durable.Median(), r.Memory.Median(), goalDurableRatio, met(r.Ratio.Median() >= goalDurableRatio))
	dlo, dhi := r.DiskBytes.Range()
	fmt.Fprintf(w, "| Bytes on disk per payment (--state), %d connections | %.0f B | the journal's frames over the payments answered, %.0f to %.0f B | (none) | - |\n",
		r.Connections, r.DiskBytes.Median(), dlo, dhi)
}
