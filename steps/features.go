package steps

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// catalog is the suite's own index of the feature files: every scenario
// (one per row of a scenario outline) with its file, line, name and tags.
// The runner selects scenarios (tags, file:line, rerun) and writes its
// reports from it, so that it never depends on godog's formatters for what
// a scenario is.
type catalog struct {
	features []*featureFile
	// byKey finds the entry of a pickle godog runs: uri, name and step texts.
	byKey map[string]*entry
}

// featureFile is one parsed feature file.
type featureFile struct {
	URI  string
	Name string
	// Entries in file order.
	Entries []*entry
}

// entry is one scenario as it runs: a scenario, or one row of an outline.
type entry struct {
	Feature *featureFile
	// Line is the scenario's line; Row the line of its example row (0 for
	// a plain scenario).
	Line, Row int
	Name      string
	Tags      []string // without "@", feature and example tags included
	Steps     []entryStep
}

// entryStep is one step of an entry, as written.
type entryStep struct {
	Keyword, Text string
	Line          int
}

// Location is file:line of the entry: the example row's line for an outline
// row, as Cucumber's rerun files write it.
func (e *entry) Location() string {
	if e.Row > 0 {
		return fmt.Sprintf("%s:%d", e.Feature.URI, e.Row)
	}
	return fmt.Sprintf("%s:%d", e.Feature.URI, e.Line)
}

func pickleKey(uri, name string, steps []string) string {
	return uri + "\x00" + name + "\x00" + strings.Join(steps, "\x00")
}

// baseURI drops the ":line" godog appends to the uri of a feature given as
// file:line.
func baseURI(uri string) string {
	if i := strings.LastIndexByte(uri, ':'); i > 0 && strings.HasSuffix(uri, ".feature"+uri[i:]) {
		return uri[:i]
	}
	return uri
}

// lookup returns the entry of a pickle run by godog, or nil.
func (c *catalog) lookup(p *messages.Pickle) *entry {
	texts := make([]string, len(p.Steps))
	for i, st := range p.Steps {
		texts[i] = st.Text
	}
	return c.byKey[pickleKey(baseURI(p.Uri), p.Name, texts)]
}

// loadCatalog parses every *.feature file of fsys.
func loadCatalog(fsys fs.FS) (*catalog, error) {
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
	c := &catalog{byKey: map[string]*entry{}}
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		ff, err := parseFeature(p, data)
		if err != nil {
			return nil, err
		}
		c.features = append(c.features, ff)
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

func parseFeature(uri string, data []byte) (*featureFile, error) {
	newID := (&messages.Incrementing{}).NewId
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), newID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", uri, err)
	}
	ff := &featureFile{URI: path.Clean(uri)}
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
	for _, p := range gherkin.Pickles(*doc, ff.URI, newID) {
		e := &entry{Feature: ff, Name: p.Name, Line: lines[p.AstNodeIds[0]]}
		if len(p.AstNodeIds) > 1 {
			e.Row = lines[p.AstNodeIds[1]]
		}
		for _, t := range p.Tags {
			e.Tags = append(e.Tags, strings.TrimPrefix(t.Name, "@"))
		}
		for _, st := range p.Steps {
			e.Steps = append(e.Steps, entryStep{Keyword: keywords[st.AstNodeIds[0]], Text: st.Text, Line: lines[st.AstNodeIds[0]]})
		}
		ff.Entries = append(ff.Entries, e)
	}
	return ff, nil
}
