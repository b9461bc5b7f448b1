package gherkin

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Selection is the set of scenarios a run executes, and the paths godog is
// given to run them.
type Selection struct {
	chosen  map[*Scenario]bool
	ordered []*Scenario
	// Paths are godog's: a whole file, or file:line of a scenario.
	Paths []string
}

// Chosen reports whether the selection holds e.
func (sel *Selection) Chosen(s *Scenario) bool { return sel.chosen[s] }

// Ordered are the scenarios of the selection in file order: the files in
// path order, each file's scenarios (and an outline's rows) as written.
func (sel *Selection) Ordered() []*Scenario { return sel.ordered }

// location is one feature file, and lines in it (none: the whole file).
type location struct {
	uri   string
	lines []int
}

// parseLocation resolves "features/payments.feature:37" (or without the
// features/ folder, or with several :lines) against the features.
func (fts *Features) parseLocation(arg string) (location, error) {
	parts := strings.Split(arg, ":")
	file := parts[0]
	var lines []int
	for _, p := range parts[1:] {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return location{}, fmt.Errorf("%q: %q is not a line number", arg, p)
		}
		lines = append(lines, n)
	}
	file = strings.TrimPrefix(strings.ReplaceAll(file, "\\", "/"), "./")
	for _, ff := range fts.Files {
		if file == ff.URI || strings.HasSuffix(file, "/"+ff.URI) {
			return location{uri: ff.URI, lines: lines}, nil
		}
	}
	return location{}, fmt.Errorf("%q: no such feature file in the suite", arg)
}

// matches reports whether line points at e: its scenario line, its example
// row, or one of its steps.
func (e *Scenario) matches(line int) bool {
	if line == e.Row {
		return true
	}
	if line == e.Line || slices.ContainsFunc(e.Steps, func(s Step) bool { return s.Line == line }) {
		// A scenario outline's own lines select every row of it.
		return true
	}
	return false
}

// Select returns the scenarios matching the tag expression and,
// when given, the locations. Either malformed is an error, and so is a
// selection of no scenario at all.
func (fts *Features) Select(tags string, locs []string) (*Selection, error) {
	expr, err := parseTagExpr(tags)
	if err != nil {
		return nil, err
	}
	var parsed []location
	for _, l := range locs {
		loc, err := fts.parseLocation(l)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, loc)
	}
	sel := &Selection{chosen: map[*Scenario]bool{}}
	for _, ff := range fts.Files {
		var lines []int
		all := true
		for _, e := range ff.Scenarios {
			if !e.atLocations(parsed) || !expr(tagSet(e.Tags)) {
				all = false
				continue
			}
			sel.chosen[e] = true
			sel.ordered = append(sel.ordered, e)
			if !slices.Contains(lines, e.Line) {
				lines = append(lines, e.Line)
			}
		}
		switch {
		case len(lines) == 0:
		case all:
			sel.Paths = append(sel.Paths, ff.URI)
		default:
			for _, l := range lines {
				sel.Paths = append(sel.Paths, fmt.Sprintf("%s:%d", ff.URI, l))
			}
		}
	}
	if len(sel.chosen) == 0 {
		what := []string{}
		if strings.TrimSpace(tags) != "" {
			what = append(what, fmt.Sprintf("the tag expression %q", tags))
		}
		if len(locs) > 0 {
			what = append(what, strings.Join(locs, " "))
		}
		return nil, fmt.Errorf("no scenario matches %s", strings.Join(what, " and "))
	}
	return sel, nil
}

func (e *Scenario) atLocations(locs []location) bool {
	if len(locs) == 0 {
		return true
	}
	for _, l := range locs {
		if l.uri != e.File.URI {
			continue
		}
		if len(l.lines) == 0 || slices.ContainsFunc(l.lines, e.matches) {
			return true
		}
	}
	return false
}

func tagSet(tags []string) map[string]bool {
	m := make(map[string]bool, len(tags))
	for _, t := range tags {
		m[t] = true
	}
	return m
}
