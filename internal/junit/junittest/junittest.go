// Package junittest reads a JUnit XML file as CI systems (Jenkins, GitLab,
// GitHub) read it, for the tests of every tool that writes one: its types
// are written independently of package junit's, so a test of a writer does
// not read back through the writer's own structure.
package junittest

import (
	"encoding/xml"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Testsuites is the root of a JUnit file.
type Testsuites struct {
	XMLName  xml.Name    `xml:"testsuites"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Suites   []Testsuite `xml:"testsuite"`
}

// Testsuite is one <testsuite>.
type Testsuite struct {
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Skipped  int        `xml:"skipped,attr"`
	Cases    []Testcase `xml:"testcase"`
}

// Testcase is one <testcase> and its outcome.
type Testcase struct {
	Name       string `xml:"name,attr"`
	Classname  string `xml:"classname,attr"`
	Properties []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
	Skipped []struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
	Failures []struct {
		Message string `xml:"message,attr"`
		Body    string `xml:",chardata"`
	} `xml:"failure"`
	Errors []struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
	} `xml:"error"`
	SystemOut string `xml:"system-out"`
}

// Read reads the JUnit file path and checks what every CI reader relies
// on: each suite's tests attribute counts its cases, every case has a
// classname and at most one outcome, and the root's tests attribute
// counts them all. It returns the file and its cases by name.
func Read(t *testing.T, path string) (Testsuites, map[string]Testcase) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var ju Testsuites
	require.NoError(t, xml.Unmarshal(data, &ju))
	cases := map[string]Testcase{}
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
