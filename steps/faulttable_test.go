package steps_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/verdict"
)

var update = flag.Bool("update", false, "write testdata/faults.json and docs/faults.md from the runs of TestEveryFault")

// faultRow is what a run of the suite against one fault of the reference
// found: the scenarios that failed and those blocked ("feature: name",
// sorted), and the causes it reported (the titles of its groups). Why says
// why a fault reads as more than one cause, or as none; Causes then
// declares how many it may read as.
type faultRow struct {
	Failed  []string `json:"failed"`
	Blocked []string `json:"blocked"`
	Causes  []string `json:"causes"`
	Allowed int      `json:"allowed_causes,omitempty"`
	Why     string   `json:"why,omitempty"`
}

// CauseCount is how many causes the fault may read as.
func (r faultRow) CauseCount() int { return max(r.Allowed, 1) }

func faultRowOf(f reference.Fault, res steps.Result) faultRow {
	r := faultRow{Failed: []string{}, Blocked: []string{}, Causes: []string{}}
	for _, sc := range res.Summary.Scenarios {
		switch sc.Status {
		case verdict.StatusFailed:
			r.Failed = append(r.Failed, sc.Feature+": "+sc.Name)
		case verdict.StatusNotJudged:
			r.Blocked = append(r.Blocked, sc.Feature+": "+sc.Name)
		}
	}
	slices.Sort(r.Failed)
	slices.Sort(r.Blocked)
	for _, g := range append(res.Summary.FailureGroups, res.Summary.NotJudgedGroups...) {
		r.Causes = append(r.Causes, g.Title())
	}
	return r
}

const faultTablePath = "testdata/faults.json"

func readFaultTable(t *testing.T) map[reference.Fault]faultRow {
	out := map[reference.Fault]faultRow{}
	b, err := os.ReadFile(faultTablePath)
	if os.IsNotExist(err) && *update {
		return out
	}
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// writeFaultTable writes the rows the runs found, keeping the declared
// allowance and why of each fault.
func writeFaultTable(t *testing.T, seen, declared map[reference.Fault]faultRow) {
	for f, r := range seen {
		r.Allowed, r.Why = declared[f].Allowed, declared[f].Why
		seen[f] = r
	}
	b, err := json.MarshalIndent(seen, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(faultTablePath, append(b, '\n'), 0o644))
	doc, err := os.ReadFile("../docs/faults.md")
	require.NoError(t, err)
	head, _, _ := strings.Cut(string(doc), "| Fault |")
	require.NoError(t, os.WriteFile("../docs/faults.md", []byte(head+faultTableMarkdown(seen)), 0o644))
}

// faultTableMarkdown is the table of docs/faults.md: each fault in the
// order of `reference --list-faults`, how many scenarios fail and are
// blocked against it, how many causes the run reports, and why where that
// is not one.
func faultTableMarkdown(rows map[reference.Fault]faultRow) string {
	var b strings.Builder
	b.WriteString("| Fault | Failed | Blocked | Causes | Why |\n|---|---:|---:|---:|---|\n")
	for _, f := range reference.AllFaults() {
		r := rows[f]
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d | %s |\n", f, len(r.Failed), len(r.Blocked), len(r.Causes), r.Why)
	}
	return b.String()
}
