package report

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	messages "github.com/cucumber/messages/go/v21"

	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/verdict"
)

// The cucumber JSON of a run, as Cucumber's JSON formatter writes it (and
// godog's, whose fields these are, in the order json writes a map): one
// feature per file, one element per scenario run (an outline's row). What
// godog does not know is added: a skipped scenario says why on its first
// step and has no step shown other than skipped, and a scenario's warnings
// are output and a text/plain embedding of its last step, where Cucumber
// reporters show them.
type (
	cukeFeature struct {
		Comments    []cukeComment `json:"comments,omitempty"`
		Description string        `json:"description"`
		Elements    []cukeElement `json:"elements"`
		ID          string        `json:"id"`
		Keyword     string        `json:"keyword"`
		Line        int64         `json:"line"`
		Name        string        `json:"name"`
		Tags        []cukeTag     `json:"tags,omitempty"`
		URI         string        `json:"uri"`
	}
	cukeComment struct {
		Line  int64  `json:"line"`
		Value string `json:"value"`
	}
	cukeTag struct {
		Line int64  `json:"line"`
		Name string `json:"name"`
	}
	cukeElement struct {
		Description string     `json:"description"`
		ID          string     `json:"id"`
		Keyword     string     `json:"keyword"`
		Line        int        `json:"line"`
		Name        string     `json:"name"`
		Steps       []cukeStep `json:"steps,omitempty"`
		Tags        []cukeTag  `json:"tags,omitempty"`
		Type        string     `json:"type"`
	}
	cukeStep struct {
		DocString  *cukeDocString  `json:"doc_string,omitempty"`
		Embeddings []cukeEmbedding `json:"embeddings,omitempty"`
		Keyword    string          `json:"keyword"`
		Line       int             `json:"line"`
		Match      cukeMatch       `json:"match"`
		Name       string          `json:"name"`
		Output     []string        `json:"output,omitempty"`
		Result     cukeResult      `json:"result"`
		Rows       []cukeRow       `json:"rows,omitempty"`
	}
	cukeDocString struct {
		ContentType string `json:"content_type"`
		Line        int64  `json:"line"`
		Value       string `json:"value"`
	}
	cukeEmbedding struct {
		Data     string `json:"data"`
		MimeType string `json:"mime_type"`
		Name     string `json:"name"`
	}
	cukeMatch struct {
		Location string `json:"location"`
	}
	cukeResult struct {
		Duration *int64 `json:"duration,omitempty"`
		Error    string `json:"error_message,omitempty"`
		Status   string `json:"status"`
	}
	cukeRow struct {
		Cells []string `json:"cells"`
	}
)

// WriteCucumber writes the cucumber JSON of a run: its features in the
// order of their names, the scenarios of each in file order, then the
// cases of the run's other judges, a feature per judge (judgeFeatures).
func WriteCucumber(w io.Writer, sum Summary) error {
	byFile := map[*gherkin.File][]verdict.Case{}
	var files []*gherkin.File
	for _, r := range sum.Scenarios {
		if r.Entry == nil {
			continue // not a scenario of the feature files: judgeFeatures
		}
		f := r.Entry.File
		if byFile[f] == nil {
			files = append(files, f)
		}
		byFile[f] = append(byFile[f], r)
	}
	slices.SortStableFunc(files, func(a, b *gherkin.File) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.URI, b.URI)) })
	out := []cukeFeature{}
	for _, f := range files {
		results := byFile[f]
		slices.SortStableFunc(results, func(a, b verdict.Case) int {
			return slices.Index(f.Scenarios, a.Entry) - slices.Index(f.Scenarios, b.Entry)
		})
		feat := f.Doc.Feature
		cf := cukeFeature{URI: f.URI, ID: cukeID(feat.Name), Keyword: feat.Keyword, Name: feat.Name, Description: feat.Description,
			Line: feat.Location.Line, Tags: cukeTags(feat.Tags)}
		for _, c := range f.Doc.Comments {
			cf.Comments = append(cf.Comments, cukeComment{Line: c.Location.Line, Value: strings.TrimSpace(c.Text)})
		}
		for _, r := range results {
			cf.Elements = append(cf.Elements, cukeElementOf(cf, r))
		}
		out = append(out, cf)
	}
	out = append(out, judgeFeatures(sum)...)
	data, err := json.MarshalIndent(out, "", "    ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

func cukeID(name string) string { return strings.ReplaceAll(strings.ToLower(name), " ", "-") }

func cukeTags(tags []*messages.Tag) []cukeTag {
	var out []cukeTag
	for _, t := range tags {
		out = append(out, cukeTag{Line: t.Location.Line, Name: t.Name})
	}
	return out
}

// cukeElementOf is the element of result r of feature f.
func cukeElementOf(f cukeFeature, r verdict.Case) cukeElement {
	s := r.Entry
	e := cukeElement{ID: f.ID + ";" + cukeID(s.Name), Keyword: s.AST.Keyword, Name: s.Name, Description: s.AST.Description,
		Line: s.Line, Type: "scenario", Tags: append(slices.Clone(f.Tags), cukeTags(s.AST.Tags)...)}
	if s.Examples != nil {
		e.ID += fmt.Sprintf(";%s;%d", cukeID(s.Examples.Name), s.RowIndex+2)
		e.Line = s.Row
		e.Tags = append(e.Tags, cukeTags(s.Examples.Tags)...)
	}
	for i, run := range r.Steps[:min(len(r.Steps), len(s.Steps))] {
		st := s.Steps[i]
		cs := cukeStep{Keyword: st.AST.Keyword, Name: run.Text, Line: st.Line, Match: cukeMatch{Location: run.Location},
			Result: cukeResult{Status: run.Status}}
		if arg := st.Arg; arg != nil && arg.DocString != nil && st.AST.DocString != nil {
			cs.DocString = &cukeDocString{ContentType: strings.TrimSpace(arg.DocString.MediaType), Line: st.AST.DocString.Location.Line, Value: arg.DocString.Content}
		}
		if arg := st.Arg; arg != nil && arg.DataTable != nil {
			for _, row := range arg.DataTable.Rows {
				var cells []string
				for _, c := range row.Cells {
					cells = append(cells, c.Value)
				}
				cs.Rows = append(cs.Rows, cukeRow{Cells: cells})
			}
		}
		switch {
		case r.Status == verdict.StatusSkipped:
			cs.Result = cukeResult{Status: verdict.StatusSkipped}
			if i == 0 {
				cs.Result.Error = r.Reason
			}
		case run.Status == "passed" || run.Status == "failed":
			cs.Result.Duration = &run.Nanos
		}
		if run.Err != nil && r.Status != verdict.StatusSkipped {
			cs.Result.Error = run.Err.Error()
		}
		e.Steps = append(e.Steps, cs)
	}
	if n := len(e.Steps); n > 0 && len(r.Warnings) > 0 {
		var lines []string
		for _, w := range r.Warnings {
			lines = append(lines, w.String())
		}
		e.Steps[n-1].Output = lines
		e.Steps[n-1].Embeddings = []cukeEmbedding{{MimeType: "text/plain", Name: "warnings",
			Data: base64.StdEncoding.EncodeToString([]byte(strings.Join(lines, "\n")))}}
	}
	return e
}

// judgeFeatures are the cases of the run's other judges (a generated
// property, a probe case), as Cucumber reporters can show them: a feature
// per judge, in the order of sum.Judges, an element per case with one step
// that carries its outcome (a case not judged is skipped, its message
// saying so) and its failure.
func judgeFeatures(sum Summary) []cukeFeature {
	var out []cukeFeature
	for _, jc := range sum.otherJudges() {
		j, cases := jc.run, jc.cases
		f := cukeFeature{URI: j.Name, ID: cukeID(j.Name), Keyword: "Feature", Name: verdict.JudgeTitle(j.Name), Description: j.Line()}
		for i, r := range cases {
			nanos := int64(r.Seconds * 1e9)
			res := cukeResult{Status: r.Status, Duration: &nanos}
			switch r.Status {
			case verdict.StatusNotJudged:
				res = cukeResult{Status: verdict.StatusSkipped, Error: "not judged: " + r.Reason}
			case verdict.StatusSkipped:
				res = cukeResult{Status: verdict.StatusSkipped, Error: r.Reason}
			case verdict.StatusFailed:
				res.Error = r.Reason
			}
			st := cukeStep{Keyword: "Then ", Name: "it holds against the target", Line: i + 1, Result: res, Match: cukeMatch{Location: j.Name}}
			if len(r.Warnings) > 0 {
				var lines []string
				for _, w := range r.Warnings {
					lines = append(lines, w.String())
				}
				st.Output = lines
			}
			f.Elements = append(f.Elements, cukeElement{ID: f.ID + ";" + cukeID(r.Name), Keyword: "Scenario", Name: r.Name,
				Line: i + 1, Type: "scenario", Steps: []cukeStep{st}})
		}
		out = append(out, f)
	}
	return out
}
