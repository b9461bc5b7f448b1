package report

import (
	"io"
	"strings"

	"github.com/partnercommerce/conformance/verdict"
)

// WriteRerun writes the rerun file of a run (gherkin.RerunFile): the
// location of each scenario that failed or was undefined, one a line, as
// Cucumber's rerun formatter does.
func WriteRerun(w io.Writer, sum Summary) error {
	var b strings.Builder
	for _, r := range sum.Scenarios {
		if (r.Status == verdict.StatusFailed || r.Status == verdict.StatusUndefined) && r.Location != "" {
			b.WriteString(r.Location + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
