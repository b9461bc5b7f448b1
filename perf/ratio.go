package perf

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Rounds is a measurement taken in alternating rounds.
type Rounds struct {
	Values []float64
}

// Median is the median of the rounds (0 with none).
func (r Rounds) Median() float64 {
	if len(r.Values) == 0 {
		return 0
	}
	v := slices.Sorted(slices.Values(r.Values))
	if n := len(v); n%2 == 1 {
		return v[n/2]
	} else {
		return (v[n/2-1] + v[n/2]) / 2
	}
}

// Range is the smallest and largest round.
func (r Rounds) Range() (lo, hi float64) {
	if len(r.Values) == 0 {
		return 0, 0
	}
	return slices.Min(r.Values), slices.Max(r.Values)
}

// RatioConfig is the server ratio: payment creation on the reference over
// the static handler, both measured by one client in alternating rounds.
type RatioConfig struct {
	Client    Client
	Static    Launcher
	Reference Launcher
	Rounds    int
	Window    time.Duration // measured per server per round
	Warmup    time.Duration // sent to each fresh server before its window
	Log       func(format string, args ...any)
}

// RatioResult holds the rates of each server and their ratio per round.
type RatioResult struct {
	Static, Reference Rounds // answers per second
	Ratio             Rounds // reference / static, per round
}

// ServerRatio runs the rounds. Each round starts each server afresh (so
// the reference starts from its data set every time) in an order that
// alternates between rounds (static first, then reference first), so that
// a drift of the machine's load falls on both alike.
func ServerRatio(ctx context.Context, cfg RatioConfig) (RatioResult, error) {
	var res RatioResult
	for round := range cfg.Rounds {
		order := []Launcher{cfg.Static, cfg.Reference}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		rates := map[string]float64{}
		for _, l := range order {
			r, err := measure(ctx, l, cfg.Client, cfg.Warmup, cfg.Window)
			if err != nil {
				return res, fmt.Errorf("round %d: %w", round+1, err)
			}
			rates[l.Name] = r.PerSecond()
			logf(cfg.Log, "round %d: %s %.0f payments/s", round+1, l.Name, r.PerSecond())
		}
		st, ref := rates[cfg.Static.Name], rates[cfg.Reference.Name]
		res.Static.Values = append(res.Static.Values, st)
		res.Reference.Values = append(res.Reference.Values, ref)
		res.Ratio.Values = append(res.Ratio.Values, ref/st)
	}
	return res, nil
}

// measure starts a server, warms it up, and measures one window.
func measure(ctx context.Context, l Launcher, c Client, warmup, window time.Duration) (Rate, error) {
	p, err := l.Start(ctx)
	if err != nil {
		return Rate{}, err
	}
	defer func() { _ = p.Stop() }()
	if warmup > 0 {
		if _, err := c.Run(ctx, p.URL, warmup); err != nil {
			return Rate{}, fmt.Errorf("%s warm-up: %w", l.Name, err)
		}
	}
	r, err := c.Run(ctx, p.URL, window)
	if err != nil {
		return Rate{}, fmt.Errorf("%s: %w", l.Name, err)
	}
	if err := r.check(l.Name); err != nil {
		return Rate{}, err
	}
	return r, nil
}

func logf(log func(string, ...any), format string, args ...any) {
	if log != nil {
		log(format, args...)
	}
}
