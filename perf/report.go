package perf

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Goals of docs/performance.md, as ratios and bytes.
const (
	goalServerRatio     = 0.80 // reference / static handler, POST payment
	goalBytesPerPayment = 512  // process memory per stored payment
	goalFlatness        = 0.90 // rate at 1M stored / at 0
)

// Report is what one perf run measured.
type Report struct {
	Client     string // the client of the server measurements
	LoadBefore string // /proc/loadavg at the start
	LoadAfter  string // and at the end
	Ratio      *RatioResult
	Durable    []DurableResult // one per client connection count
	Stored     *StoredResult
	Generators *GeneratorResult
	Memory     *MemoryResult // the generators' memory growth, and the soak's slope
}

// LoadAverage is the first three fields of /proc/loadavg, or "unknown".
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// WriteMarkdown writes the report as the table of docs/performance.md.
func (r Report) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "Load average before: %s; after: %s. Client: %s", r.LoadBefore, r.LoadAfter, r.Client)
	if len(r.Durable) > 0 {
		fmt.Fprint(w, " (the durable rows: the connections each row names)")
	}
	fmt.Fprint(w, ".\n\n")
	fmt.Fprintln(w, "| What | Measured | Detail | Goal | Met |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	if q := r.Ratio; q != nil {
		lo, hi := q.Ratio.Range()
		fmt.Fprintf(w, "| POST payment, reference / static-JSON handler | %.2f | %d %s, %.2f to %.2f; median %.0f/s against %.0f/s | at least %.2f | %s |\n",
			q.Ratio.Median(), len(q.Ratio.Values), plural(len(q.Ratio.Values), "round"), lo, hi, q.Reference.Median(), q.Static.Median(), goalServerRatio, met(q.Ratio.Median() >= goalServerRatio))
	}
	for _, d := range r.Durable {
		d.WriteRows(w)
	}
	stored := r.Stored != nil && len(r.Stored.Checkpoints) > 0
	if s := r.Stored; stored {
		first, last := s.Checkpoints[0], s.Checkpoints[len(s.Checkpoints)-1]
		if b := s.BytesPerPayment(); b != 0 {
			fmt.Fprintf(w, "| Bytes of process memory per stored payment | %.0f B | resident memory growth from the first to the last checkpoint with payments | at most %d B | %s |\n",
				b, goalBytesPerPayment, met(b <= goalBytesPerPayment))
		}
		fmt.Fprintf(w, "| Payment rate at %s stored / at %s | %.2f | %.0f/s against %.0f/s | at least %.2f | %s |\n",
			count(last.Stored), count(first.Stored), s.Flatness(), last.Rate, first.Rate, goalFlatness, met(s.Flatness() >= goalFlatness))
	}
	if g := r.Generators; g != nil {
		g.WriteRows(w)
	}
	if m := r.Memory; m != nil && len(m.Ours.Long) > 0 {
		m.WriteRows(w)
	} else if m != nil && m.Soak != nil {
		m.Soak.WriteRow(w)
	}
	if s := r.Stored; stored {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| Stored payments | Resident memory | Payments/s |")
		fmt.Fprintln(w, "|---|---|---|")
		for _, c := range s.Checkpoints {
			fmt.Fprintf(w, "| %d | %.1f MiB | %.0f |\n", c.Stored, float64(c.RSS)/(1<<20), c.Rate)
		}
	}
}

func met(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// count writes 1000000 as 1M and 100000 as 100k.
func count(n int64) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}
