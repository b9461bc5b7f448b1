package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// The JUnit structure Jenkins, GitLab and GitHub read, written here
// independently of the writer's own types and read with encoding/xml, as
// the suite's tests read its junit.xml.
type (
	jTestsuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []jTestsuite `xml:"testsuite"`
	}
	jTestsuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Cases    []jTestcase `xml:"testcase"`
	}
	jTestcase struct {
		Name      string `xml:"name,attr"`
		Classname string `xml:"classname,attr"`
		Skipped   []struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
		Failures []struct {
			Message string `xml:"message,attr"`
			Body    string `xml:",chardata"`
		} `xml:"failure"`
		Errors []struct{} `xml:"error"`
	}
)

// readJUnit reads the JUnit file path into its cases by name.
func readJUnit(t *testing.T, path string) (jTestsuites, map[string]jTestcase) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var ju jTestsuites
	require.NoError(t, xml.Unmarshal(data, &ju))
	cases := map[string]jTestcase{}
	n := 0
	for _, s := range ju.Suites {
		assert.Len(t, s.Cases, s.Tests, s.Name)
		for _, c := range s.Cases {
			assert.NotEmpty(t, c.Classname, c.Name)
			assert.LessOrEqual(t, len(c.Skipped)+len(c.Failures)+len(c.Errors), 1, "one outcome per testcase: %s", c.Name)
			cases[c.Name] = c
			n++
		}
	}
	assert.Equal(t, ju.Tests, n, "tests")
	return ju, cases
}

// TestJUnitOfAPassingRun: every invariant class and every threshold has a
// test case, and all pass.
func TestJUnitOfAPassingRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "load.xml")
	out, stderr, err := runCLI(t, "--scenario", "create", "--rate", "20", "--duration", "500ms", "--quiet", "--out", t.TempDir(),
		"--junit", path, "--max-p99", "5s", "--max-duplicate-debits", "0")
	require.NoError(t, err, out+stderr)
	ju, cases := readJUnit(t, path)
	assert.Zero(t, ju.Failures+ju.Errors)
	for _, name := range []string{"the run passes", "lost writes", "duplicate debits", "wallet mismatches", "uncertain requests",
		"contract violations", "p99<=5s", "duplicate_debits<=0", "uncertain_pct<=1%"} {
		c, ok := cases[name]
		if assert.True(t, ok, "no test case %q", name) {
			assert.Empty(t, c.Failures, name)
			assert.Empty(t, c.Skipped, name)
		}
	}
}

// TestJUnitOfAFailingRun: against a reference that creates a second
// transaction for a reused partner_trx_id, an idempotency run fails: the
// duplicate debits' case and threshold fail with the count measured, the
// run's case fails, and the classes the fault did not break pass.
func TestJUnitOfAFailingRun(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t, reference.FaultDuplicateTrxAccepted)
	path := filepath.Join(t.TempDir(), "load.xml")
	_, _, err := runCLI(t, "--target", srv.URL, "--scenario", "idempotency", "--wave-size", "4", "--rate", "40", "--duration", "500ms",
		"--quiet", "--out", t.TempDir(), "--junit", path, "--max-duplicate-debits", "0")
	require.ErrorIs(t, err, errFailed)
	ju, cases := readJUnit(t, path)
	assert.Positive(t, ju.Failures)

	dup := cases["duplicate debits"]
	require.Len(t, dup.Failures, 1, "the duplicate debits' case passed")
	assert.Regexp(t, `^[1-9][0-9]* ids created more than once: [1-9][0-9]* duplicate debits`, dup.Failures[0].Message)
	th := cases["duplicate_debits<=0"]
	require.Len(t, th.Failures, 1, "the threshold's case passed")
	assert.Regexp(t, `^threshold duplicate_debits<=0: duplicate_debits measured [1-9][0-9]*\.000 in scenario idempotency`, th.Failures[0].Message)
	require.Len(t, cases["the run passes"].Failures, 1)
	assert.Contains(t, cases["the run passes"].Failures[0].Body, "duplicate debits")
	for _, name := range []string{"lost writes", "contract violations", "uncertain requests", "uncertain_pct<=1%"} {
		assert.Empty(t, cases[name].Failures, name)
	}
}
