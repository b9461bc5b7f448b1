package steps

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// featureDoc is one feature file read for the living documentation: its
// description and its scenarios, one per row of a scenario outline, as godog
// names them.
type featureDoc struct {
	URI         string
	Name        string
	Description string
	Tags        []string
	Area        string // the area tag, empty when the feature has none
	Scenarios   []pickleText
}

// pickleText is one scenario as it runs: its name, tags, steps (keyword and
// text, outline values filled in) and the whole text for searching.
type pickleText struct {
	Feature string
	Name    string
	Tags    []string
	Steps   []string
	Text    string
}

// sectionsRe finds the sections of the document a feature cites.
var sectionsRe = regexp.MustCompile(`sections? [0-9][0-9., and]*[0-9]`)

// Sections returns the part of the description citing the document.
func (f featureDoc) Sections() string {
	return strings.TrimSpace(sectionsRe.FindString(f.Description))
}

// readFeatures parses every .feature file of fsys, in the order of the
// areas of the document (then by file name).
func readFeatures(fsys fs.FS) ([]featureDoc, error) {
	names, err := fs.Glob(fsys, "*.feature")
	if err != nil {
		return nil, err
	}
	var docs []featureDoc
	for _, name := range names {
		f, err := fsys.Open(name)
		if err != nil {
			return nil, err
		}
		var n int
		newID := func() string { n++; return fmt.Sprint(n) }
		doc, err := gherkin.ParseGherkinDocument(f, newID)
		_ = f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if doc.Feature == nil {
			continue
		}
		docs = append(docs, toFeatureDoc(name, doc, newID))
	}
	rank := func(d featureDoc) int {
		if i := slices.Index(areaTags, d.Area); i >= 0 {
			return i
		}
		return len(areaTags)
	}
	sort.SliceStable(docs, func(i, j int) bool { return rank(docs[i]) < rank(docs[j]) })
	return docs, nil
}

func toFeatureDoc(uri string, doc *messages.GherkinDocument, newID func() string) featureDoc {
	fd := featureDoc{
		URI:         path.Base(uri),
		Name:        doc.Feature.Name,
		Description: strings.Join(strings.Fields(doc.Feature.Description), " "),
	}
	for _, t := range doc.Feature.Tags {
		tag := strings.TrimPrefix(t.Name, "@")
		fd.Tags = append(fd.Tags, tag)
		if fd.Area == "" && slices.Contains(areaTags, tag) {
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
	for _, p := range gherkin.Pickles(*doc, uri, newID) {
		pt := pickleText{Feature: uri, Name: p.Name}
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
