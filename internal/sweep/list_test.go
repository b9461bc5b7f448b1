package sweep

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakefileRunsEverySweep: make test's second pass runs the tests named
// by the Makefile's SWEEPS, in SWEEP_PACKAGES; a test that calls NoRace but
// is missing there would run in neither pass. The list, the packages and
// the code agree.
func TestMakefileRunsEverySweep(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^SWEEPS := \^\(([^)]*)\)\$\$$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no line SWEEPS := ^(A|B|…)$$")
	}
	listed := strings.Split(string(m[1]), "|")
	p := regexp.MustCompile(`(?m)^SWEEP_PACKAGES := (.*)$`).FindSubmatch(mk)
	if p == nil {
		t.Fatal("the Makefile has no line SWEEP_PACKAGES := …")
	}
	packages := strings.Fields(string(p[1]))

	sweepFunc := regexp.MustCompile(`func (Test\w+)\(t \*testing\.T\) \{\n\tsweep\.NoRace\(t\)`)
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, sm := range sweepFunc.FindAllSubmatch(src, -1) {
			found = append(found, string(sm[1]))
			pkg := "./" + filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, root+string(filepath.Separator))))
			if !slices.Contains(packages, pkg) {
				t.Errorf("%s (%s) is a sweep, but its package is not in the Makefile's SWEEP_PACKAGES", sm[1], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	slices.Sort(listed)
	if !slices.Equal(found, listed) {
		t.Errorf("the sweeps in the code %v, the Makefile's SWEEPS %v: make test would not run a sweep the list lacks", found, listed)
	}
}
