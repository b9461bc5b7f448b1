package gherkin

import (
	"bufio"
	"os"
	"strings"
)

// RerunFile is the file of the report directory that lists, one location
// a line, the scenarios that failed or were undefined in the last run, as
// Cucumber's rerun formatter does; cmd/conformance --rerun-failed reads it.
const RerunFile = "rerun.txt"

// ReadRerun returns the locations listed in a rerun file. A missing file is
// an error that wraps fs.ErrNotExist.
func ReadRerun(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	var locs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			locs = append(locs, l)
		}
	}
	return locs, sc.Err()
}
