package junit

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteCountsAndOmits: Write counts each suite's cases and the report's
// by outcome, as CI systems read the counts, and writes no empty element
// or attribute of a case that has none.
func TestWriteCountsAndOmits(t *testing.T) {
	t.Parallel()
	r := Report{Suites: []Suite{
		{Name: "a", Time: Seconds(1.5), Cases: []Case{
			{Name: "passed", Classname: "a"},
			{Name: "failed", Classname: "a", Failure: &Failure{Message: "one line", Body: "x < y\nand more"}},
			{Name: "skipped", Classname: "a", Skipped: &Skipped{Message: "why"}},
		}},
		{Name: "b", Time: Seconds(0), Properties: &Properties{Property: []Property{{Name: "seed", Value: "1"}}}, Cases: []Case{
			{Name: "error", Classname: "b", Error: &Failure{Message: "undefined", Type: "undefined"}},
		}},
	}}
	var b bytes.Buffer
	require.NoError(t, Write(&b, r))
	var got struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Skipped  int `xml:"skipped,attr"`
			Cases    []struct {
				Failure struct {
					Body string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, [4]int{4, 1, 1, 1}, [4]int{got.Tests, got.Failures, got.Errors, got.Skipped})
	require.Len(t, got.Suites, 2)
	assert.Equal(t, [4]int{3, 1, 0, 1}, [4]int{got.Suites[0].Tests, got.Suites[0].Failures, got.Suites[0].Errors, got.Suites[0].Skipped})
	assert.Equal(t, [4]int{1, 0, 1, 0}, [4]int{got.Suites[1].Tests, got.Suites[1].Failures, got.Suites[1].Errors, got.Suites[1].Skipped})
	assert.Equal(t, "x < y\nand more", got.Suites[0].Cases[1].Failure.Body)
	out := b.String()
	assert.Contains(t, out, `<testcase name="passed" classname="a"></testcase>`, "a passed case without time, file, line or properties")
	assert.Equal(t, 1, bytes.Count(b.Bytes(), []byte("<properties>")), "only the suite with properties has them")
	assert.NotContains(t, out, `type=""`)
}
