package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	messages "github.com/cucumber/messages/go/v21"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/internal/version"
	"github.com/partnercommerce/conformance/verdict"
)

// The living documentation is the page a partner reads to learn what the
// API document requires, after the tools partners know (Pickles, Serenity
// BDD's living documentation, Relish): the feature files organised by the
// document's sections and endpoints, each rule (a scenario, or a scenario
// outline with its examples table) with what is sent and what comes back,
// exact messages as code, and the section 7 tables with the rules proving
// each row. It is not a run report: no outcome badges and no outcome
// filter, unless a run's summary is overlaid.

//go:embed livingdocs.tmpl
var livingDocsTemplate string

var livingDocs = template.Must(template.New("docs").Funcs(template.FuncMap{
	"join": strings.Join,
	"path": pathHTML,
}).Parse(livingDocsTemplate))

// pathHTML renders a path so that a narrow column wraps it after a slash
// (a <wbr> after each), never inside a word.
func pathHTML(p string) template.HTML {
	return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(p), "/", "/<wbr>")) // escaped first
}

// FileLivingDocs is the name of the living documentation page.
const FileLivingDocs = "living-docs.html"

// readingsDocURL is where the readings are explained, for a page that is
// read away from the repository.
const readingsDocURL = "https://github.com/partnercommerce/conformance/blob/main/docs/conformance-readings.md"

type docsPage struct {
	SuiteVersion, SpecSHA256, Date string
	ReadingsURL                    string
	Features                       []docsFeature
	Endpoints                      []docsEndpoint
	Tables                         []docsTable
	Rules, Examples                int
	// Run is the overlaid run, or nil.
	Run *docsRun
}

type docsRun struct {
	Target, Date string
	Totals       verdict.Counts
}

type docsFeature struct {
	ID, Name, File, Description, Sections string
	Readings                              []docsReading
	Endpoints                             []docsEndpoint
	Rules                                 []*docsRule
}

type docsEndpoint struct {
	ID, Operation, Method, Path, Summary string
	Rows                                 []docsRow
}

type docsRule struct {
	ID, Name, Location string
	Tags               []string
	Readings           []docsReading
	Background         []docsStep
	Steps              []docsStep
	Examples           *docsExamples
	// Outcome is the overlaid run's outcome, when a run is overlaid.
	Outcome string
	// rowOffset is where the rows of each examples table start in Examples;
	// feature is the ID of the feature holding the rule.
	rowOffset map[*messages.Examples]int
	feature   string
}

type docsStep struct {
	Keyword string
	Text    template.HTML
	Kind    string // given, when or then: the setting, the request, the answer
}

type docsExamples struct {
	Header []string
	Rows   []docsExampleRow
}

type docsExampleRow struct {
	Cells   []string
	Outcome string
}

type docsReading struct{ ID, Sentence, Text string }

type docsTable struct {
	Name string
	Rows []docsRow
}

type docsRow struct {
	contract.Row
	Method, Path string
	Proofs       []docsLink
	Outcome      string
}

type docsLink struct{ ID, Name string }

// WriteLivingDocs writes the living documentation of the feature files
// fts. With sum, the outcome of that run is overlaid on each rule, example
// and section 7 row.
func WriteLivingDocs(w io.Writer, fts *gherkin.Features, sum *Summary) error {
	page := docsPage{SuiteVersion: version.Suite, SpecSHA256: version.SpecSHA256(), ReadingsURL: readingsDocURL,
		Date: time.Now().UTC().Format("2006-01-02")}
	outcomes := map[string]string{}
	var results []verdict.Case
	if sum != nil {
		page.Run = &docsRun{Target: sum.Target, Date: sum.StartedAt.UTC().Format(time.RFC3339), Totals: sum.Totals}
		for _, r := range sum.Scenarios {
			outcomes[resultKey(r.Feature, r.Name)] = r.Outcome()
		}
		results = sum.Scenarios
	}
	ops, err := contract.Operations()
	if err != nil {
		return err
	}
	if page.Endpoints, err = docsEndpoints(ops); err != nil {
		return err
	}
	byName := page.readFeatures(fts, outcomes)
	matrix := Section7(nil, nil, fts, results)
	if sum != nil && sum.Section7 != nil {
		matrix = sum.Section7
	}
	usedBy := page.placeRows(matrix, ops, byName, sum != nil)
	page.linkFeatures(usedBy)
	return executePage(w, livingDocs, page)
}

// docsEndpoints are the contract's operations in the document's order, each
// with its summary from openapi.yaml.
func docsEndpoints(ops map[string]contract.Operation) ([]docsEndpoint, error) {
	spec, err := contract.Spec()
	if err != nil {
		return nil, err
	}
	summaries := map[string]string{}
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			summaries[op.OperationID] = op.Summary
		}
	}
	var endpoints []docsEndpoint
	for _, id := range slices.SortedFunc(func(yield func(string) bool) {
		for id := range ops {
			if !yield(id) {
				return
			}
		}
	}, func(a, b string) int { return contract.OperationRank(a) - contract.OperationRank(b) }) {
		op := ops[id]
		endpoints = append(endpoints, docsEndpoint{ID: "op-" + slug(id), Operation: id, Method: op.Method, Path: op.Path, Summary: summaries[id]})
	}
	return endpoints, nil
}

// readFeatures adds the feature files to the page, ordered by area, and
// returns the rules of the scenarios as they run (an outline row included)
// by the scenario's name, in that order.
func (page *docsPage) readFeatures(fts *gherkin.Features, outcomes map[string]string) map[string][]*docsRule {
	byName := map[string][]*docsRule{}
	for _, f := range fts.ByArea() {
		page.Features = append(page.Features, docsFeatureOf(f, byName, outcomes))
	}
	return byName
}

// placeRows puts each section 7 row under its endpoint and its table, with
// the rules that prove it (and, withOutcome, the run's outcome). It returns,
// per feature ID, the operations its rules prove.
func (page *docsPage) placeRows(matrix []MatrixRow, ops map[string]contract.Operation, byName map[string][]*docsRule, withOutcome bool) map[string]map[string]bool {
	endpoints := map[string]*docsEndpoint{}
	for i := range page.Endpoints {
		endpoints[page.Endpoints[i].Operation] = &page.Endpoints[i]
	}
	tables := map[string]int{}
	usedBy := map[string]map[string]bool{}
	for _, m := range matrix {
		op := ops[m.Operation]
		row := docsRow{Row: m.Row, Method: op.Method, Path: op.Path}
		if withOutcome {
			row.Outcome = m.Outcome
		}
		seen := map[string]bool{}
		for _, name := range m.Scenarios {
			for _, rule := range byName[name] {
				if seen[rule.ID] {
					continue
				}
				seen[rule.ID] = true
				row.Proofs = append(row.Proofs, docsLink{ID: rule.ID, Name: rule.Name})
				if usedBy[rule.feature] == nil {
					usedBy[rule.feature] = map[string]bool{}
				}
				usedBy[rule.feature][m.Operation] = true
			}
		}
		if e := endpoints[m.Operation]; e != nil {
			e.Rows = append(e.Rows, row)
		}
		i, ok := tables[m.Table]
		if !ok {
			i = len(page.Tables)
			tables[m.Table] = i
			page.Tables = append(page.Tables, docsTable{Name: m.Table})
		}
		page.Tables[i].Rows = append(page.Tables[i].Rows, row)
	}
	return usedBy
}

// linkFeatures lists under each feature the endpoints of its area and those
// its rules prove (usedBy), and counts the page's rules and examples.
func (page *docsPage) linkFeatures(usedBy map[string]map[string]bool) {
	for i := range page.Features {
		f := &page.Features[i]
		for _, e := range page.Endpoints {
			area := strings.TrimPrefix(f.ID, "area-")
			if slices.Contains(operationAreas[e.Operation], area) || usedBy[f.ID][e.Operation] {
				f.Endpoints = append(f.Endpoints, e)
			}
		}
		page.Rules += len(f.Rules)
		for _, r := range f.Rules {
			if r.Examples != nil {
				page.Examples += len(r.Examples.Rows)
			} else {
				page.Examples++
			}
		}
	}
}

// docsFeatureOf is the page's feature of file f: its rules (scenarios and
// outlines with their examples), the rule of each scenario as it runs added
// to byName.
func docsFeatureOf(f *gherkin.File, byName map[string][]*docsRule, outcomes map[string]string) docsFeature {
	df := docsFeature{File: f.URI, ID: "area-" + slug(strings.TrimSuffix(f.URI, ".feature")), Name: f.Name, Description: f.Description, Sections: f.Sections()}
	if f.Area != "" {
		df.ID = "area-" + f.Area
	}
	var featureReadings []string
	for _, t := range f.Tags {
		if id, ok := strings.CutPrefix(t, gherkin.ReadingTagPrefix); ok {
			featureReadings = append(featureReadings, id)
		}
	}
	df.Readings = readingsOf(featureReadings)

	var background []docsStep
	rules := map[*messages.Scenario]*docsRule{}
	addScenario := func(sc *messages.Scenario, bg []docsStep) {
		r := newDocsRule(f.URI, sc, bg)
		r.feature = df.ID
		rules[sc] = r
		df.Rules = append(df.Rules, r)
	}
	for _, ch := range f.Doc.Feature.Children {
		switch {
		case ch.Background != nil:
			background = docsSteps(ch.Background.Steps)
		case ch.Scenario != nil:
			addScenario(ch.Scenario, background)
		case ch.Rule != nil:
			ruleBg := background
			for _, rc := range ch.Rule.Children {
				if rc.Background != nil {
					ruleBg = append(slices.Clone(background), docsSteps(rc.Background.Steps)...)
				}
				if rc.Scenario != nil {
					addScenario(rc.Scenario, ruleBg)
				}
			}
		}
	}
	for _, s := range f.Scenarios {
		r := rules[s.AST]
		if !slices.Contains(byName[s.Name], r) {
			byName[s.Name] = append(byName[s.Name], r)
		}
		outcome, ran := outcomes[resultKey(f.URI, s.Name)]
		if !ran {
			continue
		}
		if s.Examples != nil && r.Examples != nil {
			r.Examples.Rows[r.rowOffset[s.Examples]+s.RowIndex].Outcome = outcome
		}
		r.Outcome = worstOutcome(r.Outcome, outcome)
	}
	return df
}

// newDocsRule is the page's rule of scenario sc of file uri, under the
// background steps bg.
func newDocsRule(uri string, sc *messages.Scenario, bg []docsStep) *docsRule {
	r := &docsRule{ID: "rule-" + slug(uri+" "+sc.Name), Name: sc.Name, Location: fmt.Sprintf("%s:%d", uri, sc.Location.Line), Background: bg}
	var ids []string
	for _, t := range sc.Tags {
		tag := strings.TrimPrefix(t.Name, "@")
		if id, ok := strings.CutPrefix(tag, gherkin.ReadingTagPrefix); ok {
			ids = append(ids, id)
		} else if tag != gherkin.AdvisoryTag {
			r.Tags = append(r.Tags, tag)
		}
	}
	r.Readings = readingsOf(ids)
	r.Steps = docsSteps(sc.Steps)
	for _, ex := range sc.Examples {
		if ex.TableHeader == nil {
			continue
		}
		if r.Examples == nil {
			r.Examples = &docsExamples{}
			r.rowOffset = map[*messages.Examples]int{}
			for _, c := range ex.TableHeader.Cells {
				r.Examples.Header = append(r.Examples.Header, c.Value)
			}
		}
		r.rowOffset[ex] = len(r.Examples.Rows)
		for _, row := range ex.TableBody {
			var cells []string
			for _, c := range row.Cells {
				cells = append(cells, c.Value)
			}
			r.Examples.Rows = append(r.Examples.Rows, docsExampleRow{Cells: cells})
		}
	}
	return r
}

// worstOutcome combines the outcomes of a rule's examples.
func worstOutcome(a, b string) string {
	order := []string{"", verdict.StatusPassed, verdict.StatusSkipped, verdict.OutcomeWarned, verdict.StatusUndefined, verdict.StatusFailed}
	if slices.Index(order, b) > slices.Index(order, a) {
		return b
	}
	return a
}

func readingsOf(ids []string) []docsReading {
	var out []docsReading
	for _, id := range ids {
		r, ok := contract.LookupReading(id)
		if !ok {
			out = append(out, docsReading{ID: id})
			continue
		}
		out = append(out, docsReading{ID: id, Sentence: r.Sentence, Text: r.Text})
	}
	return out
}

// quotedRe finds the quoted values of a step (exact messages, numbers) and
// the placeholders of an outline.
var quotedRe = regexp.MustCompile(`"[^"]*"|<[^>]+>`)

// docsSteps renders steps with their quoted values as code and outline
// placeholders as variables; each is the setting (Given), the request
// (When) or the answer (Then).
func docsSteps(steps []*messages.Step) []docsStep {
	var out []docsStep
	kind := "given"
	for _, st := range steps {
		kw := strings.TrimSpace(st.Keyword)
		switch kw {
		case "Given":
			kind = "given"
		case "When":
			kind = "when"
		case "Then":
			kind = "then"
		}
		var b strings.Builder
		last := 0
		for _, m := range quotedRe.FindAllStringIndex(st.Text, -1) {
			b.WriteString(template.HTMLEscapeString(st.Text[last:m[0]]))
			v := st.Text[m[0]:m[1]]
			if strings.HasPrefix(v, "<") {
				fmt.Fprintf(&b, "<var>%s</var>", template.HTMLEscapeString(v))
			} else {
				fmt.Fprintf(&b, "<code>%s</code>", template.HTMLEscapeString(strings.Trim(v, `"`)))
			}
			last = m[1]
		}
		b.WriteString(template.HTMLEscapeString(st.Text[last:]))
		out = append(out, docsStep{Keyword: kw, Text: template.HTML(b.String()), Kind: kind}) // built from escaped parts
	}
	return out
}
