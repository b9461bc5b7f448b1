// Package gherkin reads the feature files of the suite: the index of
// scenarios the runner selects from (one per row of a scenario outline, with
// its file and line), the features as the pages document them, selection by
// tag expression and by FILE:LINE, and the rerun file of the last run's
// failures. It knows nothing of running a scenario or of a run's outcome.
package gherkin

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	cucumber "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// Index is the suite's own index of the feature files: every scenario
// (one per row of a scenario outline) with its file, line, name and tags.
// The runner selects scenarios (tags, file:line, rerun) and writes its
// reports from it, so that it never depends on godog's formatters for what
// a scenario is.
type Index struct {
	Files []*File
	// byKey finds the entry of a pickle godog runs: uri, name and step texts.
	byKey map[string]*Entry
}

// File is one parsed feature file.
type File struct {
	URI  string
	Name string
	// Entries in file order.
	Entries []*Entry
}

// Entry is one scenario as it runs: a scenario, or one row of an outline.
type Entry struct {
	File *File
	// Line is the scenario's line; Row the line of its example row (0 for
	// a plain scenario).
	Line, Row int
	Name      string
	Tags      []string // without "@", feature and example tags included
	Steps     []Step
}

// Step is one step of an entry, as written.
type Step struct {
	Keyword, Text string
	Line          int
}

// Location is file:line of the entry: the example row's line for an outline
// row, as Cucumber's rerun files write it.
func (e *Entry) Location() string {
	if e.Row > 0 {
		return fmt.Sprintf("%s:%d", e.File.URI, e.Row)
	}
	return fmt.Sprintf("%s:%d", e.File.URI, e.Line)
}

func pickleKey(uri, name string, steps []string) string {
	return uri + "\x00" + name + "\x00" + strings.Join(steps, "\x00")
}

// BaseURI drops the ":line" godog appends to the uri of a feature given as
// file:line.
func BaseURI(uri string) string {
	if i := strings.LastIndexByte(uri, ':'); i > 0 && strings.HasSuffix(uri, ".feature"+uri[i:]) {
		return uri[:i]
	}
	return uri
}

// Lookup returns the entry of a pickle run by godog, or nil.
func (c *Index) Lookup(p *messages.Pickle) *Entry {
	texts := make([]string, len(p.Steps))
	for i, st := range p.Steps {
		texts[i] = st.Text
	}
	return c.byKey[pickleKey(BaseURI(p.Uri), p.Name, texts)]
}

// LoadIndex parses every *.feature file of fsys.
func LoadIndex(fsys fs.FS) (*Index, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".feature") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	c := &Index{byKey: map[string]*Entry{}}
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		ff, err := parseFeature(p, data)
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, ff)
		for _, e := range ff.Entries {
			texts := make([]string, len(e.Steps))
			for i, st := range e.Steps {
				texts[i] = st.Text
			}
			if k := pickleKey(ff.URI, e.Name, texts); c.byKey[k] == nil {
				c.byKey[k] = e
			}
		}
	}
	return c, nil
}

func parseFeature(uri string, data []byte) (*File, error) {
	newID := (&messages.Incrementing{}).NewId
	doc, err := cucumber.ParseGherkinDocument(bytes.NewReader(data), newID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", uri, err)
	}
	ff := &File{URI: path.Clean(uri)}
	if doc.Feature == nil {
		return ff, nil
	}
	ff.Name = doc.Feature.Name
	lines := map[string]int{}
	keywords := map[string]string{}
	addSteps := func(steps []*messages.Step) {
		for _, st := range steps {
			lines[st.Id] = int(st.Location.Line)
			keywords[st.Id] = strings.TrimSpace(st.Keyword)
		}
	}
	addScenario := func(sc *messages.Scenario) {
		lines[sc.Id] = int(sc.Location.Line)
		addSteps(sc.Steps)
		for _, ex := range sc.Examples {
			for _, row := range ex.TableBody {
				lines[row.Id] = int(row.Location.Line)
			}
		}
	}
	for _, ch := range doc.Feature.Children {
		switch {
		case ch.Background != nil:
			addSteps(ch.Background.Steps)
		case ch.Scenario != nil:
			addScenario(ch.Scenario)
		case ch.Rule != nil:
			for _, rc := range ch.Rule.Children {
				if rc.Background != nil {
					addSteps(rc.Background.Steps)
				}
				if rc.Scenario != nil {
					addScenario(rc.Scenario)
				}
			}
		}
	}
	for _, p := range cucumber.Pickles(*doc, ff.URI, newID) {
		e := &Entry{File: ff, Name: p.Name, Line: lines[p.AstNodeIds[0]]}
		if len(p.AstNodeIds) > 1 {
			e.Row = lines[p.AstNodeIds[1]]
		}
		for _, t := range p.Tags {
			e.Tags = append(e.Tags, strings.TrimPrefix(t.Name, "@"))
		}
		for _, st := range p.Steps {
			e.Steps = append(e.Steps, Step{Keyword: keywords[st.AstNodeIds[0]], Text: st.Text, Line: lines[st.AstNodeIds[0]]})
		}
		ff.Entries = append(ff.Entries, e)
	}
	return ff, nil
}
