package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/partnercommerce/conformance/verdict"
)

// The rerun file of a run (gherkin.RerunFile) lists what --rerun-failed
// runs again: every case that failed, was undefined or was not judged,
// whichever judge ran it. A scenario is its location, one a line, as
// Cucumber's rerun formatter writes it ("features/payments.feature:49");
// a case of another judge is "judge NAME SEED CASE", the judge's seed
// repeating its draws ("judge probe 1795… createPayment: concurrent
// payments from one wallet").

// rerunJudge starts the line of another judge's case.
const rerunJudge = "judge "

// WriteRerun writes the rerun file of a run.
func WriteRerun(w io.Writer, sum Summary) error {
	seeds := map[string]uint64{}
	for _, j := range sum.Judges {
		seeds[j.Name] = j.Seed
	}
	var b strings.Builder
	for _, r := range sum.Scenarios {
		switch r.Status {
		case verdict.StatusFailed, verdict.StatusUndefined, verdict.StatusNotJudged:
		default:
			continue
		}
		switch {
		case r.Entry != nil || r.Judge == "" || r.Judge == verdict.JudgeScenarios:
			if r.Location != "" {
				b.WriteString(r.Location + "\n")
			}
		case seeds[r.Judge] != 0:
			fmt.Fprintf(&b, "%s%s %d %s\n", rerunJudge, r.Judge, seeds[r.Judge], r.Name)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Rerun is what a rerun file asks to run again: the scenarios by their
// locations, and the cases of each other judge with its seed.
type Rerun struct {
	Locations []string
	Judges    map[string]JudgeRerun
}

// JudgeRerun is the cases of one judge to run again, with the judge's
// seed.
type JudgeRerun struct {
	Seed  uint64
	Cases []string
}

// Empty reports whether there is nothing to run again.
func (r Rerun) Empty() bool { return len(r.Locations) == 0 && len(r.Judges) == 0 }

// ParseRerun reads the lines of a rerun file.
func ParseRerun(lines []string) (Rerun, error) {
	var r Rerun
	for _, l := range lines {
		rest, ok := strings.CutPrefix(l, rerunJudge)
		if !ok {
			r.Locations = append(r.Locations, l)
			continue
		}
		parts := strings.SplitN(rest, " ", 3)
		if len(parts) != 3 {
			return Rerun{}, fmt.Errorf("rerun file: %q: a judge's line is \"judge NAME SEED CASE\"", l)
		}
		seed, err := strconv.ParseUint(parts[1], 10, 64)
		if err != nil {
			return Rerun{}, fmt.Errorf("rerun file: %q: the seed: %w", l, err)
		}
		if r.Judges == nil {
			r.Judges = map[string]JudgeRerun{}
		}
		jr := r.Judges[parts[0]]
		jr.Seed = seed
		jr.Cases = append(jr.Cases, parts[2])
		r.Judges[parts[0]] = jr
	}
	return r, nil
}
