package steps

import (
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/partnercommerce/conformance/features"
)

// selection is the set of scenarios a run executes, and the paths godog is
// given to run them.
type selection struct {
	chosen map[*entry]bool
	// paths are godog's: a whole file, or file:line of a scenario.
	paths []string
}

// location is one feature file, and lines in it (none: the whole file).
type location struct {
	uri   string
	lines []int
}

// parseLocation resolves "features/payments.feature:37" (or without the
// features/ folder, or with several :lines) against the catalog.
func (c *catalog) parseLocation(arg string) (location, error) {
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
	for _, ff := range c.features {
		if file == ff.URI || strings.HasSuffix(file, "/"+ff.URI) {
			return location{uri: ff.URI, lines: lines}, nil
		}
	}
	return location{}, fmt.Errorf("%q: no such feature file in the suite", arg)
}

// matches reports whether line points at e: its scenario line, its example
// row, or one of its steps.
func (e *entry) matches(line int) bool {
	if line == e.Row {
		return true
	}
	if line == e.Line || slices.ContainsFunc(e.Steps, func(s entryStep) bool { return s.Line == line }) {
		// A scenario outline's own lines select every row of it.
		return true
	}
	return false
}

// selectScenarios returns the scenarios matching the tag expression and,
// when given, the locations. Both are usage errors when malformed, and so
// is a selection of no scenario at all.
func (c *catalog) selectScenarios(tags string, locs []string) (*selection, error) {
	expr, err := parseTagExpr(tags)
	if err != nil {
		return nil, err
	}
	var parsed []location
	for _, l := range locs {
		loc, err := c.parseLocation(l)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, loc)
	}
	sel := &selection{chosen: map[*entry]bool{}}
	for _, ff := range c.features {
		var lines []int
		all := true
		for _, e := range ff.Entries {
			if !e.atLocations(parsed) || !expr(tagSet(e.Tags)) {
				all = false
				continue
			}
			sel.chosen[e] = true
			if !slices.Contains(lines, e.Line) {
				lines = append(lines, e.Line)
			}
		}
		switch {
		case len(lines) == 0:
		case all:
			sel.paths = append(sel.paths, ff.URI)
		default:
			for _, l := range lines {
				sel.paths = append(sel.paths, fmt.Sprintf("%s:%d", ff.URI, l))
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

func (e *entry) atLocations(locs []location) bool {
	if len(locs) == 0 {
		return true
	}
	for _, l := range locs {
		if l.uri != e.Feature.URI {
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

// CheckSelection reports, before anything is started, whether the tag
// expression and the locations are well formed and select at least one
// scenario of fsys (nil: the suite's features). The error wraps ErrUsage.
func CheckSelection(fsys fs.FS, tags string, locations []string) error {
	if fsys == nil {
		fsys = features.FS
	}
	cat, err := loadCatalog(fsys)
	if err != nil {
		return fmt.Errorf("%w: reading the features: %w", ErrUsage, err)
	}
	if _, err := cat.selectScenarios(tags, locations); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return nil
}
