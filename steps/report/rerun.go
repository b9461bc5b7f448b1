package report

import (
	"io"
	"strings"
)

// WriteRerun writes the rerun file of a run (gherkin.RerunFile): the
// location of each scenario that failed or was undefined, one a line, as
// Cucumber's rerun formatter does.
func WriteRerun(w io.Writer, sum Summary) error {
	var b strings.Builder
	for _, r := range sum.Scenarios {
		if (r.Status == StatusFailed || r.Status == StatusUndefined) && r.Location != "" {
			b.WriteString(r.Location + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
