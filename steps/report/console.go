package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/partnercommerce/conformance/verdict"
)

// Console writes the pretty and progress formats from the suite's own
// results, while the run goes on. Each scenario is written whole when it
// ends, under a lock, so that with concurrent scenarios no line of one lands
// inside another. Each distinct failure is printed once, in the first
// scenario of its cause; the others of that cause name it in one line.
type Console struct {
	w      io.Writer
	format string
	color  bool

	mu sync.Mutex // guards w, n and shown
	n  int        // progress characters on the current line
	// shown holds the location of the first scenario whose failure was
	// printed, by the key of its cause.
	shown map[string]string
}

// NewConsole returns the console of a run in format (pretty or progress)
// on w, coloured when color is set.
func NewConsole(w io.Writer, format string, color bool) *Console {
	return &Console{w: w, format: format, color: color, shown: map[string]string{}}
}

// ANSI colours.
const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiGrey   = "\x1b[90m"
)

func (c *Console) paint(color, s string) string {
	if !c.color || s == "" {
		return s
	}
	return color + s + ansiReset
}

// Scenario writes one finished scenario.
func (c *Console) Scenario(r verdict.Case) {
	var b strings.Builder
	if c.format == "progress" {
		c.mu.Lock()
		defer c.mu.Unlock()
		b.WriteString(c.progressMark(r))
		c.n++
		if c.n%60 == 0 {
			b.WriteString("\n")
		}
		_, _ = io.WriteString(c.w, b.String())
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.render(&b, r)
	_, _ = io.WriteString(c.w, b.String())
}

// consoleOutcomes is how the console shows each outcome: its colour, its
// progress mark and its word; a skipped scenario is never shown as passed.
var consoleOutcomes = map[string]struct{ color, mark, word string }{
	verdict.StatusPassed:  {ansiGreen, ".", "PASSED"},
	verdict.OutcomeWarned: {ansiYellow, "W", "PASSED WITH WARNINGS"},
	verdict.StatusFailed:  {ansiRed, "F", "FAILED"},
	verdict.StatusSkipped: {ansiCyan, "S", "SKIPPED"},
	// A rule not judged is neither passed nor skipped: the target kept the
	// scenario from observing it.
	verdict.StatusNotJudged: {ansiYellow, "N", "NOT JUDGED"},
}

func (c *Console) progressMark(r verdict.Case) string {
	if o, ok := consoleOutcomes[r.Outcome()]; ok {
		return c.paint(o.color, o.mark)
	}
	return c.paint(ansiYellow, "U")
}

// statusWord is how a scenario's outcome is shown.
func (c *Console) statusWord(r verdict.Case) string {
	if o, ok := consoleOutcomes[r.Outcome()]; ok {
		return c.paint(o.color, o.word)
	}
	return c.paint(ansiYellow, strings.ToUpper(r.Status))
}

// render writes a scenario, its steps, its failure and warnings; c.mu
// is held.
func (c *Console) render(b *strings.Builder, r verdict.Case) {
	loc := r.Location
	if loc == "" {
		loc = r.Feature
	}
	failure := c.failureText(r, loc)
	fmt.Fprintf(b, "\n%s %s %s\n", c.statusWord(r), r.Name, c.paint(ansiGrey, "# "+loc))
	switch r.Status {
	case verdict.StatusSkipped:
		fmt.Fprintf(b, "  %s\n", c.paint(ansiCyan, r.Reason))
		return
	case verdict.StatusNotJudged:
		fmt.Fprintf(b, "  %s\n", c.paint(ansiYellow, "not judged: "+r.Reason))
		return
	}
	end := r.EndedAt()
	for i, st := range r.Steps {
		keyword := ""
		if r.Entry != nil && i < len(r.Entry.Steps) {
			keyword = r.Entry.Steps[i].Keyword + " "
		}
		mark, color := "✓", ansiGreen
		switch {
		case i > end || st.Status == "skipped": // after the step the scenario ended on: not run
			mark, color = "-", ansiCyan
		case st.Status == "failed":
			mark, color = "✗", ansiRed
		case st.Status == "undefined" || st.Status == "pending" || st.Status == "ambiguous":
			mark, color = "?", ansiYellow
		}
		fmt.Fprintf(b, "  %s %s%s\n", c.paint(color, mark), keyword, st.Text)
		if i == end && st.Status == "failed" && st.Err != nil {
			b.WriteString(indent(c.paint(ansiRed, failure), "      "))
		}
		if i == end && st.Status == "undefined" {
			fmt.Fprintf(b, "      %s\n", c.paint(ansiYellow, "no step definition matches this step"))
		}
	}
	if r.Status == verdict.StatusFailed && !slices.ContainsFunc(r.Steps, func(s verdict.StepRun) bool { return s.Status == "failed" && s.Err != nil }) {
		b.WriteString(indent(c.paint(ansiRed, failure), "      "))
	}
	for _, w := range r.Warnings {
		b.WriteString(indent(c.paint(ansiYellow, w.String()), "  "))
	}
}

// failureText is the failure of r as the console prints it: whole for
// the first scenario of its cause, else one line naming that scenario.
func (c *Console) failureText(r verdict.Case, loc string) string {
	if r.Status != verdict.StatusFailed {
		return ""
	}
	cause := causeOf(r)
	if first, ok := c.shown[cause.Key()]; ok {
		return fmt.Sprintf("same cause as %s, printed there: %s", first, cause.Headline)
	}
	c.shown[cause.Key()] = loc
	return strings.TrimRight(r.Reason, "\n")
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// Finish ends the console output of a run: the scenarios whose last
// request got no answer, held back until the run knew whether the target
// had stopped answering. With the progress format, each failed scenario is
// written whole, once, after the marks.
func (c *Console) Finish(sum Summary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	if c.format != "progress" {
		for _, r := range sum.Scenarios {
			if r.NoAnswer() {
				c.render(&b, r)
			}
		}
		_, _ = io.WriteString(c.w, b.String())
		return
	}
	if c.n%60 != 0 {
		b.WriteString("\n")
	}
	for _, r := range sum.Scenarios {
		if r.Status == verdict.StatusFailed || r.Status == verdict.StatusUndefined {
			c.render(&b, r)
		}
	}
	_, _ = io.WriteString(c.w, b.String())
}
