package gherkin

import (
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

// FeatureDoc is one feature file read for the pages: its
// description and its scenarios, one per row of a scenario outline, as godog
// names them.
type FeatureDoc struct {
	URI         string
	Name        string
	Description string
	Tags        []string
	Area        string // the area tag, empty when the feature has none
	Scenarios   []ScenarioText
}

// ScenarioText is one scenario as it runs: its name, tags, steps (keyword and
// text, outline values filled in) and the whole text for searching.
type ScenarioText struct {
	Feature string
	Name    string
	Tags    []string
	Steps   []string
	Text    string
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
func (f FeatureDoc) Sections() string {
	return strings.TrimSpace(sectionsRe.FindString(f.Description))
}

// ReadFeatures parses every .feature file of fsys, in the order of the
// areas of the document (then by file name).
func ReadFeatures(fsys fs.FS) ([]FeatureDoc, error) {
	names, err := fs.Glob(fsys, "*.feature")
	if err != nil {
		return nil, err
	}
	var docs []FeatureDoc
	for _, name := range names {
		f, err := fsys.Open(name)
		if err != nil {
			return nil, err
		}
		var n int
		newID := func() string { n++; return fmt.Sprint(n) }
		doc, err := cucumber.ParseGherkinDocument(f, newID)
		_ = f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if doc.Feature == nil {
			continue
		}
		docs = append(docs, FeatureDocOf(name, doc, newID))
	}
	rank := func(d FeatureDoc) int {
		if i := slices.Index(Areas, d.Area); i >= 0 {
			return i
		}
		return len(Areas)
	}
	sort.SliceStable(docs, func(i, j int) bool { return rank(docs[i]) < rank(docs[j]) })
	return docs, nil
}

// FeatureDocOf reads the parsed feature file doc of uri; newID is the
// parser's, so that the pickles it compiles get ids of their own.
func FeatureDocOf(uri string, doc *messages.GherkinDocument, newID func() string) FeatureDoc {
	fd := FeatureDoc{
		URI:         path.Base(uri),
		Name:        doc.Feature.Name,
		Description: strings.Join(strings.Fields(doc.Feature.Description), " "),
	}
	for _, t := range doc.Feature.Tags {
		tag := strings.TrimPrefix(t.Name, "@")
		fd.Tags = append(fd.Tags, tag)
		if fd.Area == "" && slices.Contains(Areas, tag) {
			fd.Area = tag
		}
	}
	keywords := map[string]string{}
	collect := func(steps []*messages.Step) {
		for _, st := range steps {
			keywords[st.Id] = strings.TrimSpace(st.Keyword)
		}
	}
	for _, child := range doc.Feature.Children {
		if child.Background != nil {
			collect(child.Background.Steps)
		}
		if child.Scenario != nil {
			collect(child.Scenario.Steps)
		}
		if child.Rule != nil {
			for _, rc := range child.Rule.Children {
				if rc.Background != nil {
					collect(rc.Background.Steps)
				}
				if rc.Scenario != nil {
					collect(rc.Scenario.Steps)
				}
			}
		}
	}
	for _, p := range cucumber.Pickles(*doc, uri, newID) {
		pt := ScenarioText{Feature: uri, Name: p.Name}
		for _, t := range p.Tags {
			pt.Tags = append(pt.Tags, strings.TrimPrefix(t.Name, "@"))
		}
		var text strings.Builder
		text.WriteString(p.Name)
		for _, st := range p.Steps {
			kw := ""
			if len(st.AstNodeIds) > 0 {
				kw = keywords[st.AstNodeIds[0]]
			}
			line := strings.TrimSpace(kw + " " + st.Text)
			if st.Argument != nil && st.Argument.DocString != nil {
				line += "\n" + st.Argument.DocString.Content
			}
			if st.Argument != nil && st.Argument.DataTable != nil {
				for _, row := range st.Argument.DataTable.Rows {
					var cells []string
					for _, c := range row.Cells {
						cells = append(cells, c.Value)
					}
					line += "\n| " + strings.Join(cells, " | ") + " |"
				}
			}
			pt.Steps = append(pt.Steps, line)
			text.WriteString("\n" + line)
		}
		pt.Text = text.String()
		fd.Scenarios = append(fd.Scenarios, pt)
	}
	return fd
}
