package steps

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/formatters"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// godog reports a run through its formatter API: the suite's formatter
// collects what the writers of package report read. godog knows how each
// step ran (its status, its error, when it finished: its storage, which the
// embedded base formatter holds); a scenario's after hook knows the verdict
// of the document's checks (the status, the failure's cause, the warnings,
// the readings, what a stopped run left unfinished) and hands it over with
// formatter.ended. A scenario is complete when both are in, whichever comes
// last: godog reports the last step of a scenario after its after hook, and
// with concurrent scenarios only once the scenario has ended.

// formatName is the name the suite's formatter is registered under.
const formatName = "conformance"

// runFormatters holds the formatter of each run under way by its suite name:
// godog builds a formatter from a suite name and a writer only.
var (
	registerOnce  sync.Once
	runFormatters sync.Map // suite name → *formatter
)

// register makes the suite's formatter known to godog, once.
func register() {
	registerOnce.Do(func() {
		godog.Format(formatName, "the conformance suite's results (package report writes them)", func(suite string, out io.Writer) godog.Formatter {
			f, _ := runFormatters.Load(suite)
			fm := f.(*formatter)
			fm.BaseFmt = godog.NewBaseFmt(suite, out)
			if fm.format == "pretty" || fm.format == "progress" {
				fm.console = report.NewConsole(out, fm.format, fm.color)
			}
			return fm
		})
	})
}

// formatter collects the results of one run, and writes each scenario to
// the console as it completes.
type formatter struct {
	*godog.BaseFmt
	format  string
	color   bool
	console *report.Console // nil for the junit and cucumber formats

	mu sync.Mutex // guards the fields below
	// runs are the scenarios under way, by pickle id.
	runs    map[string]*pickleRun
	results []verdict.Case
	// The console prints the scenarios in file order, whatever order
	// concurrent scenarios end in: order is the selection's, next the
	// first not printed yet, and held the results that wait for it.
	order []*gherkin.Scenario
	next  int
	held  map[*gherkin.Scenario]verdict.Case
}

// pickleRun is what is known of a scenario under way: the steps godog
// reported, and the verdict of its after hook (nil before it, or for a row
// the selection left out).
type pickleRun struct {
	steps   int
	ended   bool
	verdict *verdict.Case
}

// newFormatter is the formatter of a run of the scenarios of order, in
// file order.
func newFormatter(format string, color bool, order []*gherkin.Scenario) *formatter {
	return &formatter{format: format, color: color, runs: map[string]*pickleRun{}, order: order, held: map[*gherkin.Scenario]verdict.Case{}}
}

func (f *formatter) run(p *messages.Pickle) *pickleRun {
	r := f.runs[p.Id]
	if r == nil {
		r = &pickleRun{}
		f.runs[p.Id] = r
	}
	return r
}

// ended receives the verdict of a scenario from its after hook; nil drops
// the scenario (a row the selection left out).
func (f *formatter) ended(p *messages.Pickle, verdict *verdict.Case) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.run(p)
	r.ended, r.verdict = true, verdict
	f.complete(p, r)
}

// stepDone counts a step godog reported.
func (f *formatter) stepDone(p *messages.Pickle) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.run(p)
	r.steps++
	f.complete(p, r)
}

// complete adds the result of p once its verdict and all its steps are in,
// the steps as godog's storage holds them. f.mu is held.
func (f *formatter) complete(p *messages.Pickle, r *pickleRun) {
	if !r.ended || r.steps < len(p.Steps) {
		return
	}
	delete(f.runs, p.Id)
	if r.verdict == nil {
		return
	}
	res := *r.verdict
	index := map[string]int{}
	for i, st := range p.Steps {
		index[st.Id] = i
	}
	res.Steps = make([]verdict.StepRun, len(p.Steps))
	finished := make([]time.Time, len(p.Steps))
	for _, sr := range f.Storage.MustGetPickleStepResultsByPickleID(p.Id) {
		i := index[sr.PickleStepID]
		loc := ""
		if sr.Def != nil { // the definition godog matched to the step
			loc = definitionLocation(sr.Def.Expr)
		}
		if loc == "" && res.Entry != nil { // no definition: the step itself
			loc = fmt.Sprintf("%s:%d", res.Entry.File.URI, res.Entry.Steps[i].Line)
		}
		res.Steps[i] = verdict.StepRun{Text: p.Steps[i].Text, Status: sr.Status.String(), Err: sr.Err, Location: loc}
		finished[i] = sr.FinishedAt
	}
	// A step ran from the end of the one before it (the first from the
	// scenario's start), as godog's cucumber formatter counts.
	prev := f.Storage.MustGetPickleResult(p.Id).StartedAt
	start := prev
	for i, at := range finished {
		if !at.IsZero() {
			res.Steps[i].Nanos = at.Sub(prev).Nanoseconds()
			prev = at
		}
	}
	res.Seconds = prev.Sub(start).Seconds()
	f.results = append(f.results, res)
	if res.Entry == nil || !slices.Contains(f.order[f.next:], res.Entry) {
		f.print(res)
		return
	}
	f.held[res.Entry] = res
	for f.next < len(f.order) {
		r, ok := f.held[f.order[f.next]]
		if !ok {
			return
		}
		delete(f.held, f.order[f.next])
		f.next++
		f.print(r)
	}
}

// print writes a scenario's result to the console. A failure for want of
// an answer waits for the end of the run: if the target stopped answering,
// it is not the server's failure but a scenario not run to its end.
func (f *formatter) print(res verdict.Case) {
	if f.console != nil && !res.NoAnswer() {
		f.console.Scenario(res)
	}
}

// flush prints, in file order, the results still held once the scenarios
// have run: those behind a scenario that never completed (a stopped run).
func (f *formatter) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ; f.next < len(f.order); f.next++ {
		if r, ok := f.held[f.order[f.next]]; ok {
			delete(f.held, f.order[f.next])
			f.print(r)
		}
	}
}

// printCase writes a case of another judge of the run to the console as
// it ends, as a scenario is.
func (f *formatter) printCase(r verdict.Case) {
	if f.console != nil {
		f.console.Scenario(r)
	}
}

// scenarios are the results of the scenarios completed so far, in file
// order (the order the console printed them), whatever order they ended in.
func (f *formatter) scenarios() []verdict.Case {
	f.mu.Lock()
	defer f.mu.Unlock()
	pos := make(map[*gherkin.Scenario]int, len(f.order))
	for i, e := range f.order {
		pos[e] = i
	}
	at := func(r verdict.Case) int {
		if i, ok := pos[r.Entry]; ok && r.Entry != nil {
			return i
		}
		return len(f.order)
	}
	out := append([]verdict.Case(nil), f.results...)
	slices.SortStableFunc(out, func(a, b verdict.Case) int { return at(a) - at(b) })
	return out
}

// The step events of godog: each counts one step of its scenario.

func (f *formatter) Passed(p *messages.Pickle, _ *messages.PickleStep, _ *formatters.StepDefinition) {
	f.stepDone(p)
}

func (f *formatter) Skipped(p *messages.Pickle, _ *messages.PickleStep, _ *formatters.StepDefinition) {
	f.stepDone(p)
}

func (f *formatter) Undefined(p *messages.Pickle, _ *messages.PickleStep, _ *formatters.StepDefinition) {
	f.stepDone(p)
}

func (f *formatter) Pending(p *messages.Pickle, _ *messages.PickleStep, _ *formatters.StepDefinition) {
	f.stepDone(p)
}

func (f *formatter) Failed(p *messages.Pickle, _ *messages.PickleStep, _ *formatters.StepDefinition, _ error) {
	f.stepDone(p)
}

func (f *formatter) Ambiguous(p *messages.Pickle, _ *messages.PickleStep, _ *formatters.StepDefinition, _ error) {
	f.stepDone(p)
}

// Summary writes nothing: the run writes its reports once it has settled
// what a stop left unfinished (Run).
func (f *formatter) Summary() {}

var _ godog.Formatter = (*formatter)(nil)
