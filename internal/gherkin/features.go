// Package gherkin reads the feature files of the suite once, into the one
// model every part of a run reads: the scenarios the runner selects from (one
// per row of a scenario outline, with its file, line, tags and steps), the
// features as the pages and the living documentation show them (with their
// parsed documents), selection by tag expression and by FILE:LINE, and the
// rerun file of the last run's failures. It knows nothing of running a
// scenario or of a run's outcome.
package gherkin

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	cucumber "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// Features are the feature files of a file system, each parsed once.
type Features struct {
	// FS holds the files, for godog to run them.
	FS fs.FS
	// Files in path order.
	Files []*File
	// byKey finds the scenario of a pickle godog runs: uri, name and step texts.
	byKey map[string]*Scenario
}

// File is one parsed feature file.
type File struct {
	URI string
	// Doc is the parsed document (its Feature is nil for a file without one).
	Doc *messages.GherkinDocument
	// Name and Description are the feature's, the description's white
	// space collapsed.
	Name, Description string
	Tags              []string // without "@"
	Area              string   // the area tag, empty when the feature has none
	// Scenarios in file order.
	Scenarios []*Scenario
}

// Scenario is one scenario as it runs: a scenario, or one row of an outline.
type Scenario struct {
	File   *File
	Pickle *messages.Pickle
	// AST is the scenario (or outline) as written; Examples the examples
	// table holding the row, and RowIndex its index there (nil and 0 for a
	// plain scenario).
	AST      *messages.Scenario
	Examples *messages.Examples
	RowIndex int
	// Line is the scenario's line; Row the line of its example row (0 for
	// a plain scenario).
	Line, Row int
	Name      string
	Tags      []string // without "@", feature and example tags included
	Steps     []Step
	// Text is the name and the steps (keyword, text and argument), one a
	// line, for searching.
	Text string
}

// Step is one step of a scenario, its outline values filled in.
type Step struct {
	Keyword, Text string // the keyword without its trailing space
	Line          int
	AST           *messages.Step
	Arg           *messages.PickleStepArgument
}

// String is the step as the pages show it: keyword and text, then its doc
// string or table.
func (st Step) String() string {
	s := strings.TrimSpace(st.Keyword + " " + st.Text)
	if st.Arg != nil && st.Arg.DocString != nil {
		s += "\n" + st.Arg.DocString.Content
	}
	if st.Arg != nil && st.Arg.DataTable != nil {
		for _, row := range st.Arg.DataTable.Rows {
			var cells []string
			for _, c := range row.Cells {
				cells = append(cells, c.Value)
			}
			s += "\n| " + strings.Join(cells, " | ") + " |"
		}
	}
	return s
}

// Areas are the tags of the areas of the document, in its order.
var Areas = []string{"products", "customers", "payment-methods", "payments", "payment-status", "authentication", "limits"}

// The tags that tie a scenario to the readings of internal/contract.
const (
	// AdvisoryTag marks a scenario that rests on a reading as a whole.
	AdvisoryTag = "reading"
	// ReadingTagPrefix starts the tag naming a reading a scenario applies.
	ReadingTagPrefix = "reading:"
)

// sectionsRe finds the sections of the document a feature cites.
var sectionsRe = regexp.MustCompile(`sections? [0-9][0-9., and]*[0-9]`)

// Sections returns the part of the description citing the document.
func (f *File) Sections() string {
	return strings.TrimSpace(sectionsRe.FindString(f.Description))
}

// Location is file:line of the scenario: the example row's line for an
// outline row, as Cucumber's rerun files write it.
func (s *Scenario) Location() string {
	if s.Row > 0 {
		return fmt.Sprintf("%s:%d", s.File.URI, s.Row)
	}
	return fmt.Sprintf("%s:%d", s.File.URI, s.Line)
}

// ByArea returns the files that hold a feature, in the order of the areas
// of the document (then by path).
func (fts *Features) ByArea() []*File {
	var files []*File
	for _, f := range fts.Files {
		if f.Doc.Feature != nil {
			files = append(files, f)
		}
	}
	rank := func(f *File) int {
		if i := slices.Index(Areas, f.Area); i >= 0 {
			return i
		}
		return len(Areas)
	}
	sort.SliceStable(files, func(i, j int) bool { return rank(files[i]) < rank(files[j]) })
	return files
}

// Scenarios returns every scenario, file by file in path order.
func (fts *Features) Scenarios() []*Scenario {
	var out []*Scenario
	for _, f := range fts.Files {
		out = append(out, f.Scenarios...)
	}
	return out
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

// Lookup returns the scenario of a pickle run by godog, or nil.
func (fts *Features) Lookup(p *messages.Pickle) *Scenario {
	texts := make([]string, len(p.Steps))
	for i, st := range p.Steps {
		texts[i] = st.Text
	}
	return fts.byKey[pickleKey(BaseURI(p.Uri), p.Name, texts)]
}

// Load parses every *.feature file of fsys.
func Load(fsys fs.FS) (*Features, error) {
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
	fts := &Features{FS: fsys, byKey: map[string]*Scenario{}}
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		f, err := parseFile(p, data)
		if err != nil {
			return nil, err
		}
		fts.Files = append(fts.Files, f)
		for _, s := range f.Scenarios {
			texts := make([]string, len(s.Steps))
			for i, st := range s.Steps {
				texts[i] = st.Text
			}
			if k := pickleKey(f.URI, s.Name, texts); fts.byKey[k] == nil {
				fts.byKey[k] = s
			}
		}
	}
	return fts, nil
}

// parseFile parses the feature file at uri and compiles its pickles.
func parseFile(uri string, data []byte) (*File, error) {
	newID := (&messages.Incrementing{}).NewId
	doc, err := cucumber.ParseGherkinDocument(bytes.NewReader(data), newID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", uri, err)
	}
	f := &File{URI: path.Clean(uri), Doc: doc}
	if doc.Feature == nil {
		return f, nil
	}
	f.Name = doc.Feature.Name
	f.Description = strings.Join(strings.Fields(doc.Feature.Description), " ")
	f.Tags = tagNames(doc.Feature.Tags)
	for _, t := range f.Tags {
		if slices.Contains(Areas, t) {
			f.Area = t
			break
		}
	}
	ast := indexAST(doc.Feature)
	for _, p := range cucumber.Pickles(*doc, f.URI, newID) {
		f.Scenarios = append(f.Scenarios, ast.scenario(f, p))
	}
	return f, nil
}

func tagNames(tags []*messages.Tag) []string {
	var out []string
	for _, t := range tags {
		out = append(out, strings.TrimPrefix(t.Name, "@"))
	}
	return out
}

// astIndex finds the nodes of a document by their ids.
type astIndex struct {
	scenarios map[string]*messages.Scenario
	steps     map[string]*messages.Step
	// rows are the example rows: their table and index in it.
	rows map[string]exampleRow
}

type exampleRow struct {
	examples *messages.Examples
	index    int
	line     int
}

func indexAST(feature *messages.Feature) astIndex {
	ix := astIndex{scenarios: map[string]*messages.Scenario{}, steps: map[string]*messages.Step{}, rows: map[string]exampleRow{}}
	addSteps := func(steps []*messages.Step) {
		for _, st := range steps {
			ix.steps[st.Id] = st
		}
	}
	addChild := func(bg *messages.Background, sc *messages.Scenario) {
		if bg != nil {
			addSteps(bg.Steps)
		}
		if sc == nil {
			return
		}
		ix.scenarios[sc.Id] = sc
		addSteps(sc.Steps)
		for _, ex := range sc.Examples {
			for i, row := range ex.TableBody {
				ix.rows[row.Id] = exampleRow{examples: ex, index: i, line: int(row.Location.Line)}
			}
		}
	}
	for _, ch := range feature.Children {
		addChild(ch.Background, ch.Scenario)
		if ch.Rule != nil {
			for _, rc := range ch.Rule.Children {
				addChild(rc.Background, rc.Scenario)
			}
		}
	}
	return ix
}

// scenario is the model of pickle p of file f.
func (ix astIndex) scenario(f *File, p *messages.Pickle) *Scenario {
	s := &Scenario{File: f, Pickle: p, AST: ix.scenarios[p.AstNodeIds[0]], Name: p.Name}
	s.Line = int(s.AST.Location.Line)
	if len(p.AstNodeIds) > 1 {
		row := ix.rows[p.AstNodeIds[1]]
		s.Examples, s.RowIndex, s.Row = row.examples, row.index, row.line
	}
	for _, t := range p.Tags {
		s.Tags = append(s.Tags, strings.TrimPrefix(t.Name, "@"))
	}
	text := []string{p.Name}
	for _, ps := range p.Steps {
		st := ix.steps[ps.AstNodeIds[0]]
		step := Step{Keyword: strings.TrimSpace(st.Keyword), Text: ps.Text, Line: int(st.Location.Line), AST: st, Arg: ps.Argument}
		s.Steps = append(s.Steps, step)
		text = append(text, step.String())
	}
	s.Text = strings.Join(text, "\n")
	return s
}
