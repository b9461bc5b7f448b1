package report

import (
	"fmt"
	"time"

	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest/verdict"
)

// htmlFault is a row of the page's fault table.
type htmlFault struct {
	N                 int
	Name, Command     string
	Start, End, Error string
}

// htmlClass is a class of the verdict on the page: its line, and its ids
// folded beneath it (at most maxHTMLEntries; violations.jsonl has all).
type htmlClass struct {
	ClassLine
	Entries []verdict.Entry
	More    int
}

// maxHTMLEntries bounds the ids the page lists per class.
const maxHTMLEntries = 200

// verdictPage fills the page's verdict: the caveat of a pass that measured
// refusals, the class lines with their ids, the faults and their marks on
// the charts (which start at start).
func (page *htmlLoadPage) verdictPage(rep *Report, start time.Time) {
	if x := rep.Exhaustion; rep.Passed && x != nil && x.RefusedPct > 50 {
		page.Caveat = fmt.Sprintf("but %.0f%% of balance and coin payments were refused (422): the wallets ran dry, so this run measured refusals, not payments.", x.RefusedPct)
	}
	if c := rep.throttledCaveat(); rep.Passed && c != "" {
		if page.Caveat != "" {
			page.Caveat += " And "
		} else {
			page.Caveat = "but "
		}
		page.Caveat += c + "."
	}
	by := map[string][]verdict.Entry{}
	if r := rep.Reconciliation; r != nil {
		for _, e := range r.Entries {
			by[e.Class] = append(by[e.Class], e)
		}
	}
	shown := map[string]bool{"INCOMPLETE: " + rep.Incomplete: true}
	for _, f := range rep.Findings {
		shown[f.Headline] = !rep.Passed // the findings above say it already
	}
	for _, l := range rep.Verdict {
		c := htmlClass{ClassLine: l, Entries: by[l.Class]}
		if len(c.Entries) > maxHTMLEntries {
			c.More = len(c.Entries) - maxHTMLEntries
			c.Entries = c.Entries[:maxHTMLEntries]
		}
		page.Classes = append(page.Classes, c)
		if len(c.Entries) > 0 { // contract violations are answers, not ids
			page.Listed = append(page.Listed, c)
		}
	}
	for _, f := range rep.Failures {
		if !shown[f] {
			page.Failures = append(page.Failures, f)
		}
	}
	for i, f := range rep.Faults {
		from, to := f.Start.Sub(rep.Began), f.End.Sub(rep.Began)
		page.Faults = append(page.Faults, htmlFault{N: i + 1, Name: f.Name, Command: f.Command, Start: readable.Duration(from), End: readable.Duration(to), Error: f.Error})
		label := fmt.Sprintf("F%d", i+1)
		title := fmt.Sprintf("fault %d: %s, %s to %s", i+1, f.Name, readable.Duration(from), readable.Duration(to))
		for ci := range page.Charts {
			page.Charts[ci].Marks = append(page.Charts[ci].Marks,
				mark{From: f.Start.Sub(start).Seconds(), To: f.End.Sub(start).Seconds(), Label: label, Title: title})
		}
	}
}

// count writes a count or an amount of rupiah with thousands separators.
func count(v any) string {
	switch n := v.(type) {
	case int:
		return readable.Thousands(n)
	case int64:
		return readable.Thousands(n)
	}
	return fmt.Sprint(v)
}
