package steps

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cucumber/godog"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
)

// The verdict of a run has two levels. A document check follows from the
// document's words; its failure fails the scenario and the run. A reading
// check rests on an interpretation (readings.go); its failure is a warning:
// the scenario passes with warnings and the run still passes. A strict run
// (Options.Strict) turns every warning into a failure.
//
// A scenario that rests on a reading as a whole carries the tag @reading
// and names its readings with @reading:<id> tags: it is advisory, and its
// first failed check, whatever it is, becomes a warning of those readings.

// stepper registers step definitions: *godog.ScenarioContext, or
// gradedSteps around it.
type stepper interface {
	Step(expr, stepFunc any)
}

// gradedSteps registers step definitions so that a failed step of an
// advisory scenario is graded as a warning (scenario.advisory).
type gradedSteps struct {
	sc *godog.ScenarioContext
	s  *scenario
}

var errorType = reflect.TypeFor[error]()

// stepDefinitions holds each step expression compiled once, with where it
// is registered (file:line). godog would compile every expression again for
// each scenario, its results keeping each scenario's copies until the run
// ends (about 70 MB in a full run), and cucumber.json (formatter.complete)
// would name the line of gradedSteps.Step for every step. Step definitions
// are code, so the map is the same for every run.
var stepDefinitions sync.Map // expression → registeredStep

// registeredStep is a step definition's expression and where it is registered.
type registeredStep struct {
	re       *regexp.Regexp
	location string
}

// stepRegexp returns expr compiled, once, noting where the caller skip
// frames up registers it; an expression that does not compile is left to
// godog to report.
func stepRegexp(expr any, skip int) any {
	src, ok := expr.(string)
	if !ok {
		return expr
	}
	if d, ok := stepDefinitions.Load(src); ok {
		return d.(registeredStep).re
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return expr
	}
	_, file, line, _ := runtime.Caller(skip + 1)
	d, _ := stepDefinitions.LoadOrStore(src, registeredStep{re: re, location: fmt.Sprintf("%s:%d", filepath.Base(file), line)})
	return d.(registeredStep).re
}

// Step registers fn, wrapped so that its error passes through s.advisory.
func (g gradedSteps) Step(expr, fn any) {
	expr = stepRegexp(expr, 1)
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func || t.NumOut() == 0 || t.Out(t.NumOut()-1) != errorType {
		g.sc.Step(expr, fn)
		return
	}
	g.sc.Step(expr, reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		out := v.Call(in)
		last := len(out) - 1
		if out[last].IsNil() {
			return out
		}
		err := g.s.advisory(out[last].Interface().(error))
		out[last] = reflect.Zero(errorType)
		if err != nil {
			out[last] = reflect.ValueOf(&err).Elem()
		}
		return out
	}).Interface())
}

// isAdvisory reports whether the scenario rests on a reading as a whole.
func (s *scenario) isAdvisory() bool { return slices.Contains(s.tags, gherkin.AdvisoryTag) }

// taggedReadings returns the readings the scenario's @reading:<id> tags name.
func (s *scenario) taggedReadings() []string {
	var ids []string
	for _, t := range s.tags {
		if id, ok := strings.CutPrefix(t, gherkin.ReadingTagPrefix); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// advisory grades the failure of a step. In a scenario that is not
// advisory, or in a strict run, the failure stands. In an advisory
// scenario it becomes a warning of each reading the scenario names, and the
// scenario's remaining steps are skipped.
func (s *scenario) advisory(err error) error {
	if !s.isAdvisory() || s.aborted || s.endpointStopped != "" || errors.Is(err, godog.ErrSkip) ||
		errors.Is(err, godog.ErrUndefined) || errors.Is(err, godog.ErrPending) {
		return err
	}
	ids := s.taggedReadings()
	if s.h.strict {
		return fmt.Errorf("advisory scenario resting on reading %s (strict run): %w", strings.Join(ids, ", "), err)
	}
	for _, id := range ids {
		r, ok := contract.LookupReading(id)
		if !ok {
			return fmt.Errorf("the advisory scenario names the unknown reading %q: %w", id, err)
		}
		s.applied(r)
		s.warnings = append(s.warnings, contract.Warning{Reading: r.ID, Sentence: r.Sentence, Detail: err.Error()})
	}
	if len(ids) == 0 {
		return fmt.Errorf("the advisory scenario names no reading (a @reading:<id> tag): %w", err)
	}
	return fmt.Errorf("%w: advisory scenario: its failed check is a warning; the remaining steps are not run", godog.ErrSkip)
}

// definitionLocation returns where the step definition of expression re,
// the one godog matched to a step, is registered (file:line); "" for one
// registered without stepRegexp.
func definitionLocation(re *regexp.Regexp) string {
	if re == nil {
		return ""
	}
	if d, ok := stepDefinitions.Load(re.String()); ok {
		return d.(registeredStep).location
	}
	return ""
}
