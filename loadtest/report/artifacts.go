package report

import (
	"errors"
	"io"
	"sort"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/verdict"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"github.com/tsenart/vegeta/v12/lib/plot"
)

// The files of a run's output directory besides its record.
const (
	FileReport = "report.json"
	FileText   = "report.txt"
	FilePlot   = "plot.html" // `vegeta plot`-style HTML, corrected and raw latency
)

// WriteArtifacts writes the record of a run and its report into dir (created if
// missing): results.bin, ledger.jsonl, shard.json, report.json, report.txt,
// report.html and plot.html.
func WriteArtifacts(dir string, run *record.Run, rep *Report) error {
	if err := record.WriteDir(dir, run); err != nil {
		return err
	}
	write := func(name string, w Writer) error { return record.WriteFile(dir, name, w) }
	return errors.Join(
		write(FileReport, JSON(rep)),
		write(FileText, Text(rep)),
		write(FileHTML, HTML(run, rep)),
		write(FilePlot, Plot(run)),
		writeHistory(dir, run, rep, write),
		writeViolationsFile(rep, write),
	)
}

// plotPoints bounds the results the plot is drawn from: past 2·plotPoints
// results, every stride-th is drawn (a power of two), evenly spread over
// the run, so that the page's size stays bounded; the report's charts
// count every result.
const plotPoints = 5000

// plotPoint is what the plot draws of a result.
type plotPoint struct {
	failed             bool
	code               uint16
	scheduled, sent    time.Time
	corrected, latency time.Duration
}

// writePlot writes an HTML latency plot (vegeta's lib/plot) of the results
// of run, read from its results file, with two series: corrected latency
// at the scheduled time, raw latency at the send time; each split into OK
// and ERROR points.
func writePlot(w io.Writer, run *record.Run) error {
	stride := 1
	for run.Tally.Requests()/stride >= 2*plotPoints {
		stride *= 2
	}
	var points []plotPoint
	n := 0
	err := run.EachResult(func(r *record.Result) error {
		if n%stride == 0 {
			points = append(points, plotPoint{failed: r.Error != "" || r.Code == 0, code: r.Code, scheduled: r.Scheduled, sent: r.Timestamp,
				corrected: r.Corrected(), latency: r.Latency})
		}
		n++
		return nil
	})
	if err != nil {
		return err
	}
	p := plot.New(plot.Title("Load test "+run.Meta.RunID+" ("+run.Meta.Scenario+")"), plot.Downsample(4000), plot.Label(func(r *vegeta.Result) string {
		if r.Error != "" || r.Code == 0 {
			return r.Attack + " ERROR"
		}
		return r.Attack + " OK"
	}))
	add := func(name string, at func(*plotPoint) time.Time, lat func(*plotPoint) time.Duration) error {
		idx := make([]int, len(points))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return at(&points[idx[a]]).Before(at(&points[idx[b]])) })
		for seq, i := range idx {
			pt := &points[i]
			v := vegeta.Result{Attack: name, Seq: uint64(seq), Code: pt.code, Timestamp: at(pt), Latency: lat(pt)}
			if pt.failed {
				v.Error = "error"
			}
			if err := p.Add(&v); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add("corrected", func(p *plotPoint) time.Time { return p.scheduled }, func(p *plotPoint) time.Duration { return p.corrected }); err != nil {
		return err
	}
	if err := add("raw", func(p *plotPoint) time.Time { return p.sent }, func(p *plotPoint) time.Duration { return p.latency }); err != nil {
		return err
	}
	p.Close()
	_, err = p.WriteTo(w)
	return err
}

// writeViolationsFile writes violations.jsonl when the reconciliation has
// anything to list.
func writeViolationsFile(rep *Report, write func(string, Writer) error) error {
	if r := rep.Reconciliation; r != nil && len(r.Entries) > 0 {
		return write(FileViolations, Violations(r))
	}
	return nil
}

// writeHistory writes the history of a run with the history check and,
// when the check failed, porcupine's visualisation of the failing part.
func writeHistory(dir string, run *record.Run, rep *Report, write func(string, Writer) error) error {
	if rep.History == nil {
		return nil
	}
	err := record.WriteHistoryFile(dir, run) // nothing when the run streamed it there
	if rep.History.Visualized() {
		err = errors.Join(err, write(verdict.FileHistoryHTML, rep.History.WriteVisualization))
	}
	return err
}
