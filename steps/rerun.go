package steps

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// RerunFile is the file of the report directory that lists, one location
// a line, the scenarios that failed or were undefined in the last run, as
// Cucumber's rerun formatter does; cmd/conformance --rerun-failed reads it.
const RerunFile = "rerun.txt"

func writeRerun(w io.Writer, sum Summary) error {
	var b strings.Builder
	for _, r := range sum.Scenarios {
		if (r.Status == StatusFailed || r.Status == StatusUndefined) && r.Location != "" {
			b.WriteString(r.Location + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ReadRerun returns the locations listed in a rerun file. A missing file is
// an error naming it.
func ReadRerun(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist: run the suite with the same report directory first", ErrUsage, path)
	}
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
