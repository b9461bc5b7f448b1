package perf

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// StoredConfig measures one reference process as payments accumulate: at
// each checkpoint, its resident memory and the median payment rate of a few
// windows (one window would mix in whatever the machine did at that moment,
// and the first one a fresh process's warm-up).
type StoredConfig struct {
	Reference   Launcher
	Client      Client        // measures each window
	Fill        int           // connections of the Go client that fills the store between checkpoints
	Checkpoints []int         // stored payments at which to measure, ascending
	Window      time.Duration // of each rate measurement
	Windows     int           // measured at each checkpoint; the median counts (default 1)
	Log         func(format string, args ...any)
}

// Checkpoint is one measurement of StoredConfig.
type Checkpoint struct {
	Stored int64   // payments stored when the window began
	RSS    int64   // bytes resident before the window
	Rate   float64 // payments per second: the median of the windows
}

// StoredResult is the checkpoints of one run.
type StoredResult struct {
	Checkpoints []Checkpoint
}

// BytesPerPayment is the growth of resident memory per stored payment
// between the first and the last checkpoint that store payments (100k and
// 1M by default), or 0 without two such checkpoints.
func (r StoredResult) BytesPerPayment() float64 {
	var cps []Checkpoint
	for _, c := range r.Checkpoints {
		if c.Stored > 0 {
			cps = append(cps, c)
		}
	}
	if len(cps) < 2 {
		return 0
	}
	first, last := cps[0], cps[len(cps)-1]
	if last.Stored == first.Stored {
		return 0
	}
	return float64(last.RSS-first.RSS) / float64(last.Stored-first.Stored)
}

// Flatness is the rate at the last checkpoint over the rate at the first.
func (r StoredResult) Flatness() float64 {
	if len(r.Checkpoints) < 2 || r.Checkpoints[0].Rate == 0 {
		return 0
	}
	return r.Checkpoints[len(r.Checkpoints)-1].Rate / r.Checkpoints[0].Rate
}

// Stored runs the measurement. The payments of each window count towards
// the next checkpoint, so each checkpoint is reached exactly.
func Stored(ctx context.Context, cfg StoredConfig) (StoredResult, error) {
	var res StoredResult
	if !slices.IsSorted(cfg.Checkpoints) || len(cfg.Checkpoints) == 0 || cfg.Checkpoints[0] < 0 {
		return res, fmt.Errorf("checkpoints must be ascending and not negative: %v", cfg.Checkpoints)
	}
	p, err := cfg.Reference.Start(ctx)
	if err != nil {
		return res, err
	}
	defer func() { _ = p.Stop() }()
	filler := &GoClient{Connections: max(1, cfg.Fill), Prefix: "fill-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-"}
	var stored int64
	for _, cp := range cfg.Checkpoints {
		if need := int64(cp) - stored; need > 0 {
			r := filler.Send(ctx, p.URL, need)
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if err := r.check(cfg.Reference.Name + " while filling"); err != nil {
				return res, err
			}
			stored += r.Requests
			logf(cfg.Log, "stored %d payments (filled at %.0f/s)", stored, r.PerSecond())
		}
		rss, err := p.RSS()
		if err != nil {
			return res, err
		}
		at := stored
		var rates Rounds
		for range max(1, cfg.Windows) {
			r, err := cfg.Client.Run(ctx, p.URL, cfg.Window)
			if err != nil {
				return res, err
			}
			if err := r.check(cfg.Reference.Name); err != nil {
				return res, err
			}
			rates.Values = append(rates.Values, r.PerSecond())
			stored += r.Requests
		}
		lo, hi := rates.Range()
		res.Checkpoints = append(res.Checkpoints, Checkpoint{Stored: at, RSS: rss, Rate: rates.Median()})
		logf(cfg.Log, "at %d stored payments: %d MiB resident, %.0f payments/s (median of %d windows, %.0f to %.0f)",
			at, rss>>20, rates.Median(), len(rates.Values), lo, hi)
	}
	return res, nil
}
