package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cucumber/godog"

	"github.com/partnercommerce/conformance/internal/contract"
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

// advisoryTag marks a scenario that rests on a reading as a whole.
const advisoryTag = "reading"

// readingTagPrefix starts the tag naming a reading a scenario applies.
const readingTagPrefix = "reading:"

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

// stepLocations maps the expression of each step definition to where it is
// registered (file:line), for cucumber.json: godog would name the line of
// gradedSteps.Step for every step. Step definitions are code, so the map is
// the same for every run.
var stepLocations sync.Map // string -> stepLocation

type stepLocation struct {
	re       *regexp.Regexp
	location string
}

// Step registers fn, wrapped so that its error passes through s.advisory.
func (g gradedSteps) Step(expr, fn any) {
	src, _ := expr.(string)
	expr = g.s.h.stepRegexp(expr)
	if re, ok := expr.(*regexp.Regexp); ok && src != "" {
		if _, known := stepLocations.Load(src); !known {
			if _, file, line, ok := runtime.Caller(1); ok {
				stepLocations.Store(src, stepLocation{re: re, location: fmt.Sprintf("%s:%d", filepath.Base(file), line)})
			}
		}
	}
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
func (s *scenario) isAdvisory() bool { return slices.Contains(s.tags, advisoryTag) }

// taggedReadings returns the readings the scenario's @reading:<id> tags name.
func (s *scenario) taggedReadings() []string {
	var ids []string
	for _, t := range s.tags {
		if id, ok := strings.CutPrefix(t, readingTagPrefix); ok {
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
	if !s.isAdvisory() || s.aborted || errors.Is(err, godog.ErrSkip) ||
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
		s.warnings = append(s.warnings, Warning{Reading: r.ID, Sentence: r.Sentence, Detail: err.Error()})
	}
	if len(ids) == 0 {
		return fmt.Errorf("the advisory scenario names no reading (a @reading:<id> tag): %w", err)
	}
	return fmt.Errorf("%w: advisory scenario: its failed check is a warning; the remaining steps are not run", godog.ErrSkip)
}

// ReadingWarnings is a reading that servers did not follow in a run, with
// the scenarios where it happened.
type ReadingWarnings struct {
	Reading   string   `json:"reading"`
	Sentence  string   `json:"sentence"`
	Scenarios []string `json:"scenarios"`
}

// warningsByReading lists each reading not followed once, in the order of
// the first scenario that warned of it.
func warningsByReading(results []ScenarioResult) []ReadingWarnings {
	var out []ReadingWarnings
	index := map[string]int{}
	for _, r := range results {
		for _, w := range r.Warnings {
			i, ok := index[w.Reading]
			if !ok {
				i = len(out)
				index[w.Reading] = i
				out = append(out, ReadingWarnings{Reading: w.Reading, Sentence: w.Sentence})
			}
			name := r.Feature + ": " + r.Name
			if !slices.Contains(out[i].Scenarios, name) {
				out[i].Scenarios = append(out[i].Scenarios, name)
			}
		}
	}
	return out
}

// relocateSteps sets the match location of every step of the cucumber.json
// at path to the line that registered its definition.
func relocateSteps(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var features []map[string]any
	if err := json.Unmarshal(data, &features); err != nil {
		return err
	}
	for _, f := range features {
		for _, el := range list(f["elements"]) {
			e, _ := el.(map[string]any)
			for _, st := range list(e["steps"]) {
				step, _ := st.(map[string]any)
				match, _ := step["match"].(map[string]any)
				if match == nil {
					continue
				}
				name := str(step["name"])
				stepLocations.Range(func(_, v any) bool {
					if l := v.(stepLocation); l.re.MatchString(name) {
						match["location"] = l.location
						return false
					}
					return true
				})
			}
		}
	}
	out, err := json.MarshalIndent(features, "", "    ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}
