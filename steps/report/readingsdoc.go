package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	messages "github.com/cucumber/messages/go/v21"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
)

// readingsDocHeader opens docs/conformance-readings.md.
const readingsDocHeader = `# Where the conformance suite reads the API document

<!-- Generated from the readings registry (internal/contract/readings.go) and
the @reading:<id> tags of features/*.feature by ` + "`go generate ./internal/contract/`" + `.
Do not edit: a test fails when this file and the registry differ. -->

The suite asserts what the Partner Commerce API v2 document says. In a few
places the document gives a condition, a field or a rule without spelling
out every consequence, and a check has to rest on a *reading* of it. This
page lists every reading the suite makes: the sentence it rests on, the
reading, and the scenarios that apply it.

A check that rests on a reading is graded apart: when a server does not
follow the reading, the scenario passes **with a warning** naming the
reading, and the run still passes. ` + "`--strict`" + ` (` + "`make conformance STRICT=1`" + `)
turns warnings into failures. A scenario tagged ` + "`@reading`" + ` rests on its
readings as a whole: it is advisory, and any failed check in it is a warning.
Failure reports and the summary name the reading by its id.

If your server follows a different, defensible reading of one of these
sentences, please tell us: the reading is the suite's, not the document's.

Where the document says "not shown", the suite asserts nothing.
[reference-choices.md](reference-choices.md) lists what the reference server
chose in those places.
`

// ReadingsDoc renders docs/conformance-readings.md: every reading of the
// suite (contract.Readings) with the scenarios of the feature files fts
// that apply it (tag @reading:<id>), then the readings of the generated mode
// (contract.GeneratedReadings) and of the load tester
// (contract.LoadReadings).
func ReadingsDoc(fts *gherkin.Features) []byte {
	generated := contract.GeneratedReadings()
	scenarios := writtenScenarios(fts)
	var b bytes.Buffer
	b.WriteString(readingsDocHeader)
	for _, r := range contract.Readings() {
		fmt.Fprintf(&b, "\n## `%s`\n\n", r.ID)
		fmt.Fprintf(&b, "- **Sentence:** %s\n", markdownText(r.Sentence))
		fmt.Fprintf(&b, "- **Reading:** %s\n", markdownText(r.Text))
		var applied, everywhere []string
		tag := gherkin.ReadingTagPrefix + r.ID
		for _, sc := range scenarios {
			uri := sc.File.URI
			if slices.Contains(sc.File.Tags, tag) {
				if !slices.Contains(everywhere, uri) {
					everywhere = append(everywhere, uri)
					applied = append(applied, uri+": every scenario")
				}
				continue
			}
			if slices.Contains(sc.Tags, tag) {
				s := fmt.Sprintf("%s: *%s*", uri, markdownText(sc.AST.Name))
				if slices.Contains(sc.Tags, gherkin.AdvisoryTag) {
					s += " (advisory)"
				}
				applied = append(applied, s)
			}
		}
		if len(applied) == 0 {
			applied = []string{"none yet"}
		}
		b.WriteString("- **Scenarios:**\n")
		for _, a := range applied {
			fmt.Fprintf(&b, "  - %s\n", a)
		}
	}
	writeReadingsSection(&b, "The generated mode", "The generated mode (`conformance generate`, docs/generated-testing.md) grades these readings\n"+
		"the same way: a warning when the server departs from them, a failure with `--strict`.\n", generated)
	writeReadingsSection(&b, "The load tester", "The load tester (`loadtest`) grades these readings of its own checks the same way: a warning in\n"+
		"`report.json` and on the page when the server departs from them, a failure with `--strict`.\n", contract.LoadReadings())
	return b.Bytes()
}

// writtenScenarios are the scenarios as written, an outline once with the
// tags of all its rows, file by file in path order.
func writtenScenarios(fts *gherkin.Features) []*gherkin.Scenario {
	var out []*gherkin.Scenario
	seen := map[*messages.Scenario]*gherkin.Scenario{}
	for _, s := range fts.Scenarios() {
		w, ok := seen[s.AST]
		if !ok {
			w = &gherkin.Scenario{File: s.File, AST: s.AST}
			seen[s.AST] = w
			out = append(out, w)
		}
		for _, t := range s.Tags {
			if !slices.Contains(w.Tags, t) {
				w.Tags = append(w.Tags, t)
			}
		}
	}
	return out
}

// writeReadingsSection writes a judge's own readings under title, after
// intro.
func writeReadingsSection(b *bytes.Buffer, title, intro string, readings []contract.Reading) {
	if len(readings) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n%s", title, intro)
	for _, r := range readings {
		fmt.Fprintf(b, "\n### `%s`\n\n", r.ID)
		fmt.Fprintf(b, "- **Sentence:** %s\n", markdownText(r.Sentence))
		fmt.Fprintf(b, "- **Reading:** %s\n", markdownText(r.Text))
	}
}

// markdownText escapes what Markdown would read as HTML or emphasis.
var markdownText = strings.NewReplacer("<", "&lt;", ">", "&gt;", "*", "\\*", "_", "\\_").Replace
