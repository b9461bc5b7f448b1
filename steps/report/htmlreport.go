package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/verdict"
)

// FileHTMLReport is the name of the HTML page in a report directory.
const FileHTMLReport = "report.html"

//go:embed htmlreport.tmpl
var htmlReportTemplate string

var htmlReport = template.Must(template.New("report").Funcs(template.FuncMap{
	"join":    strings.Join,
	"failure": failureHTML,
	"code":    codeHTML,
	"short":   func(s string) string { return s[:min(12, len(s))] },
	"plural":  readable.Plural[int],
}).Parse(htmlReportTemplate))

type htmlPage struct {
	Target       string
	SpecSHA256   string
	SuiteVersion string
	Date         string
	Seconds      string
	Profile      [][2]string
	Capabilities []htmlCapability
	Totals       verdict.Counts
	Scenarios    int
	Verdict      string
	VerdictClass string
	Stopped      *verdict.Stop
	// Throttling says what the target's rate limit cost the run, if anything.
	Throttling string
	// Insecure says the target's certificate was not verified, if so.
	Insecure string
	// Warnings are the readings the target did not follow.
	Warnings []ReadingWarnings
	// Groups are the failed scenarios by cause, the largest first;
	// NotJudged the scenarios not judged, by what the target refused.
	Groups    []htmlGroup
	NotJudged []htmlGroup
	// Judges are the judges of the run, each on a row.
	Judges    []verdict.JudgeRun
	Failed    []htmlLink
	Areas     []htmlArea
	Matrix    []htmlMatrixRow
	Exercised int
	Coverage  []htmlOperation
	Outcomes  []string
	Tags      []string
}

type htmlCapability struct {
	Name      string
	Available bool
	Missing   string
	Counts    verdict.Counts
}

type htmlLink struct{ ID, Name, Outcome string }

// htmlGroup is a failure group: its title, its scenarios (linked) and the
// failure of the first, shown once.
type htmlGroup struct {
	Title   string
	Links   []htmlLink
	Failure string
}

type htmlArea struct {
	ID, Name, Area, File, Description, Sections string
	Tags                                        []string
	Counts                                      verdict.Counts
	Scenarios                                   []htmlScenario
}

type htmlScenario struct {
	ID, Name, Outcome, Area string
	Location                string   // file:line, to run the scenario again
	Readings                []string // readings the scenario applied
	Tags                    []string
	Steps                   []htmlStep
	Reason                  string
	Warnings                []contract.Warning
}

// htmlStep is a step with its mark: passed, failed, skipped or not run (a
// page without a run shows no mark).
type htmlStep struct {
	Text, Mark string
}

type htmlMatrixRow struct {
	MatrixRow
	Links []htmlLink
	More  int
}

type htmlOperation struct {
	Operation string
	Codes     []htmlCode
	Extra     []int // statuses received that openapi.yaml does not document
}

type htmlCode struct {
	Code int
	Got  bool
}

// WriteHTMLReport writes the conformance page of a run: the scenarios it
// ran, by area of the document as the feature files fts have them, with
// their outcomes, and the section 7 matrix. prof, when not nil, is shown
// with its secrets masked. The page fetches nothing: styles and the filter
// script are inline, and it reads well without the script. (The feature
// files without a run are the living documentation: WriteLivingDocs.)
func WriteHTMLReport(w io.Writer, fts *gherkin.Features, sum Summary, prof *profiles.Profile) error {
	page := htmlPage{}
	page.setRun(&sum)
	matrix := sum.Section7
	if matrix == nil {
		matrix = Section7(nil, nil, fts, sum.Scenarios)
	}
	if prof != nil {
		page.Profile = maskedProfile(prof)
	}
	page.Areas, page.Tags = areasOf(fts.ByArea(), sum.Scenarios)
	page.Areas = append(page.Areas, judgeAreas(&sum)...)
	page.linkMatrix(matrix)
	page.linkGroups(&sum)
	page.setVerdict(&sum)
	return executePage(w, htmlReport, page)
}

// executePage renders a page whole before writing it, so that a template
// error writes nothing.
func executePage(w io.Writer, t *template.Template, page any) error {
	var buf bytes.Buffer
	if err := t.Execute(&buf, page); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// setRun fills in what the page shows of a run: its target, date, totals,
// warnings, capabilities and coverage.
func (page *htmlPage) setRun(sum *Summary) {
	page.Target, page.SpecSHA256, page.SuiteVersion = sum.Target, sum.SpecSHA256, sum.SuiteVersion
	page.Date = sum.StartedAt.UTC().Format(time.RFC3339)
	page.Seconds = fmt.Sprintf("%.1f", sum.Seconds)
	page.Totals = sum.Totals
	page.Warnings = sum.Warnings
	for _, c := range profiles.Capabilities() {
		cr, ok := sum.Capabilities[string(c)]
		if ok {
			page.Capabilities = append(page.Capabilities, htmlCapability{Name: string(c), Available: cr.Available,
				Missing: strings.Join(cr.Missing, ", "), Counts: cr.Counts})
		}
	}
	page.Coverage = coverageRows(sum.Coverage)
}

// linkMatrix counts the page's scenarios and failures and adds the section 7
// rows, each linked to (at most four of) the scenarios that prove it.
func (page *htmlPage) linkMatrix(matrix []MatrixRow) {
	// byName links a scenario name to its first scenario in the page's order.
	byName := map[string]htmlLink{}
	for _, a := range page.Areas {
		for _, sc := range a.Scenarios {
			if _, ok := byName[sc.Name]; !ok {
				byName[sc.Name] = htmlLink{ID: sc.ID, Name: sc.Name, Outcome: sc.Outcome}
			}
			page.Scenarios++
			if sc.Outcome == verdict.StatusFailed || sc.Outcome == verdict.StatusUndefined {
				page.Failed = append(page.Failed, htmlLink{ID: sc.ID, Name: sc.Name, Outcome: sc.Outcome})
			}
		}
	}
	for _, r := range matrix {
		hr := htmlMatrixRow{MatrixRow: r}
		for _, name := range r.Scenarios {
			if len(hr.Links) == 4 {
				hr.More++
				continue
			}
			if l, ok := byName[name]; ok {
				hr.Links = append(hr.Links, l)
			}
		}
		if r.Exercised {
			page.Exercised++
		}
		page.Matrix = append(page.Matrix, hr)
	}
}

// linkGroups adds the failure groups of the run, each scenario linked to
// its article, and the failure of the first.
func (page *htmlPage) linkGroups(sum *Summary) {
	byLocation := map[string]htmlScenario{}
	for _, a := range page.Areas {
		for _, sc := range a.Scenarios {
			byLocation[sc.Location+"\x00"+sc.Name] = sc
		}
	}
	page.Groups = linked(sum.FailureGroups, byLocation)
	page.NotJudged = linked(sum.NotJudgedGroups, byLocation)
}

// linked are groups with each scenario linked to its article, and the
// failure (or the refusal) of the first.
func linked(groups []FailureGroup, byLocation map[string]htmlScenario) []htmlGroup {
	var out []htmlGroup
	for _, g := range groups {
		hg := htmlGroup{Title: g.Title()}
		for _, gs := range g.Scenarios {
			sc, ok := byLocation[gs.Location+"\x00"+gs.Name]
			if !ok {
				continue
			}
			if hg.Failure == "" {
				hg.Failure = sc.Reason
			}
			hg.Links = append(hg.Links, htmlLink{ID: sc.ID, Name: sc.Name, Outcome: sc.Outcome})
		}
		out = append(out, hg)
	}
	return out
}

// setVerdict sets the page's verdict line (the run's Verdict, in words)
// and the outcomes it can filter by.
func (page *htmlPage) setVerdict(sum *Summary) {
	page.Insecure = sum.Insecure
	page.Judges = sum.Judges
	if sum.Throttling.Any() {
		page.Throttling = sum.Throttling.String()
	}
	switch v := sum.Verdict(); {
	case sum.Stopped != nil:
		page.Stopped = sum.Stopped
		page.Verdict, page.VerdictClass = sum.Stopped.Banner(), "stopped"
	case len(sum.StoppedEndpoints) > 0:
		page.Verdict, page.VerdictClass = "INCOMPLETE: "+EndpointBanners(sum.StoppedEndpoints), "stopped"
	case v == verdict.VerdictFail:
		page.Verdict, page.VerdictClass = "FAIL: the target does not conform", verdict.StatusFailed
		if n := page.Totals.NotJudged; n > 0 {
			page.Verdict += fmt.Sprintf("; and %d not judged", n)
		}
	case v == verdict.VerdictIncomplete:
		page.Verdict, page.VerdictClass = "INCOMPLETE: "+sum.NotJudgedLine()+" — the rules they check were not judged, so the run is not a pass", "stopped"
	case page.Totals.Warned > 0:
		page.Verdict, page.VerdictClass = "PASS with warnings: the target conforms; some readings were not followed", verdict.OutcomeWarned
	default:
		page.Verdict, page.VerdictClass = "PASS: the target conforms", verdict.StatusPassed
	}
	page.Outcomes = []string{verdict.StatusPassed, verdict.OutcomeWarned, verdict.StatusFailed, verdict.StatusNotJudged, verdict.StatusSkipped, verdict.StatusUndefined}
}

// judgeAreas are the cases of the run's other judges, an area per judge
// in the order of sum.Judges: a case has no steps, and its reason is its
// failure, or why it was skipped or not judged.
func judgeAreas(sum *Summary) []htmlArea {
	var areas []htmlArea
	for _, jc := range sum.otherJudges() {
		j, cases := jc.run, jc.cases
		a := htmlArea{ID: "area-judge-" + slug(j.Name), Name: verdict.JudgeTitle(j.Name), Area: j.Name, Description: j.Line()}
		for _, r := range cases {
			a.Scenarios = append(a.Scenarios, htmlScenario{ID: "case-" + slug(j.Name+" "+r.Name), Name: r.Name, Area: j.Name, Tags: r.Tags,
				Outcome: r.Outcome(), Reason: r.Reason, Warnings: r.Warnings})
			a.Counts.Add(r)
		}
		areas = append(areas, a)
	}
	return areas
}

var slugRe = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(slugRe.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// areasOf pairs the scenarios of the features with their results. Results
// of scenarios the features do not hold (none, normally) are kept in an
// area of their own, so that no failure is hidden.
func areasOf(docs []*gherkin.File, results []verdict.Case) ([]htmlArea, []string) {
	pending := map[string][]verdict.Case{}
	for _, r := range results {
		if r.Judge != "" && r.Judge != verdict.JudgeScenarios {
			continue // a case of another judge: judgeAreas
		}
		k := resultKey(r.Feature, r.Name)
		pending[k] = append(pending[k], r)
	}
	used := map[string]int{}
	id := func(s string) string {
		base := "sc-" + slug(s)
		used[base]++
		if n := used[base]; n > 1 {
			return fmt.Sprintf("%s-%d", base, n)
		}
		return base
	}
	tags := map[string]bool{}
	var areas []htmlArea
	for _, d := range docs {
		a := htmlArea{ID: "area-" + slug(strings.TrimSuffix(d.URI, ".feature")), Name: d.Name, Area: d.Area, File: d.URI,
			Description: d.Description, Sections: d.Sections(), Tags: d.Tags}
		if a.Area == "" {
			a.Area = strings.TrimSuffix(d.URI, ".feature")
		}
		for _, p := range d.Scenarios {
			sc := htmlScenario{ID: id(d.URI + " " + p.Name), Name: p.Name, Area: a.Area, Tags: p.Tags}
			for _, st := range p.Steps {
				sc.Steps = append(sc.Steps, htmlStep{Text: st.String()})
			}
			for _, t := range p.Tags {
				tags[t] = true
			}
			k := resultKey(d.URI, p.Name)
			q := pending[k]
			if len(q) == 0 {
				continue // not selected by the run's tags
			}
			r := q[0]
			pending[k] = q[1:]
			sc.Outcome, sc.Reason, sc.Warnings = r.Outcome(), r.Reason, r.Warnings
			sc.Location, sc.Readings = r.Location, r.Readings
			markSteps(sc.Steps, r)
			a.Counts.Add(r)
			a.Scenarios = append(a.Scenarios, sc)
		}
		areas = append(areas, a)
	}
	var keys []string
	for k, q := range pending {
		if len(q) > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		sort.Strings(keys)
		other := htmlArea{ID: "area-other", Name: "Scenarios outside the feature files", Area: "other"}
		for _, k := range keys {
			for _, r := range pending[k] {
				other.Scenarios = append(other.Scenarios, htmlScenario{ID: id("other " + r.Name), Name: r.Name, Area: "other",
					Tags: r.Tags, Outcome: r.Status, Reason: r.Reason, Warnings: r.Warnings})
				other.Counts.Add(r)
			}
		}
		areas = append(areas, other)
	}
	var tagList []string
	for t := range tags {
		tagList = append(tagList, t)
	}
	sort.Strings(tagList)
	return areas, tagList
}

// The marks of the steps of a scenario that ran.
const (
	markPassed  = "passed"
	markFailed  = "failed"
	markSkipped = "skipped"
	markNotRun  = "not run"
)

// markSteps gives each step the mark of how it ran, as the console does:
// passed, failed, skipped (the scenario, or the rest of it, was skipped),
// or not run (the scenario ended before it, on a failure).
func markSteps(steps []htmlStep, r verdict.Case) {
	end := r.EndedAt()
	for i := range steps {
		switch {
		case len(r.Steps) == 0:
			if r.Status == verdict.StatusSkipped {
				steps[i].Mark = markSkipped
			}
		case i >= len(r.Steps) || i > end:
			steps[i].Mark = markNotRun
		case r.Steps[i].Status == "passed":
			steps[i].Mark = markPassed
		case r.Steps[i].Status == "failed" || r.Steps[i].Status == "undefined" || r.Steps[i].Status == "ambiguous":
			steps[i].Mark = markFailed
		default:
			steps[i].Mark = markSkipped
		}
	}
}

func coverageRows(c Coverage) []htmlOperation {
	var out []htmlOperation
	for op, oc := range c.Operations {
		ho := htmlOperation{Operation: op}
		for _, code := range oc.Documented {
			ho.Codes = append(ho.Codes, htmlCode{Code: code, Got: slices.Contains(oc.Exercised, code)})
		}
		for _, code := range oc.Exercised {
			if !slices.Contains(oc.Documented, code) {
				ho.Extra = append(ho.Extra, code)
			}
		}
		out = append(out, ho)
	}
	rank := contract.OperationRank
	sort.Slice(out, func(i, j int) bool {
		if rank(out[i].Operation) != rank(out[j].Operation) {
			return rank(out[i].Operation) < rank(out[j].Operation)
		}
		return out[i].Operation < out[j].Operation
	})
	return out
}

// maskedProfile lists the profile's keys with every secret masked.
func maskedProfile(p *profiles.Profile) [][2]string {
	out := [][2]string{{"base_url", p.BaseURL}, {"secret_key", profiles.Mask(p.SecretKey)}, {"main_token", profiles.Mask(p.MainToken)}}
	add := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	add("operator_team", p.OperatorTeam)
	add("inactive_sub_category", p.InactiveSubCategory)
	if p.FundedCustomer != nil {
		add("funded_customer.token", profiles.Mask(p.FundedCustomer.Token))
	}
	if p.SplitCustomer != nil {
		add("split_customer.token", profiles.Mask(p.SplitCustomer.Token))
	}
	if p.MixedCustomer != nil {
		add("mixed_customer.token", profiles.Mask(p.MixedCustomer.Token))
	}
	if len(p.LoadCustomers) > 0 {
		add("load_customers", fmt.Sprintf("%d accounts", len(p.LoadCustomers)))
	}
	if p.SecondPartner != nil {
		add("second_partner.secret_key", profiles.Mask(p.SecondPartner.SecretKey))
	}
	if p.InactivePricePlan != nil {
		add("inactive_price_plan.secret_key", profiles.Mask(p.InactivePricePlan.SecretKey))
	}
	if p.Fixtures.BrokenProfileToken != "" {
		add("fixtures.broken_profile_token", profiles.Mask(p.Fixtures.BrokenProfileToken))
	}
	if p.Fixtures.UnprocessableProductID != 0 {
		add("fixtures.unprocessable_product_id", fmt.Sprint(p.Fixtures.UnprocessableProductID))
	}
	if p.Fixtures.UnformedPayment != nil {
		add("fixtures.unformed_payment", "set")
	}
	return out
}
