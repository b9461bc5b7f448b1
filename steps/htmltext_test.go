package steps

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestReadableDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "< 1 ms", 300 * time.Microsecond: "< 1 ms", 12 * time.Millisecond: "12 ms", 1500 * time.Millisecond: "1.5 s",
	} {
		assert.Equal(t, want, readableDuration(d), d)
	}
}

// TestReportHTML: a report's JSON bodies are pretty-printed, escaped, and
// folded when long; other lines are kept as written.
func TestReportHTML(t *testing.T) {
	t.Parallel()
	report := "found: got <b>\n  request:  POST /x\n    body: {\"a\":1,\"b\":\"<i>\"}\n  response: 200 OK after < 1 ms\n    body: not json\n"
	got := string(reportHTML(report))
	assert.Contains(t, got, "found: got &lt;b&gt;")
	assert.Contains(t, got, "    body:\n      {\n        &#34;a&#34;: 1,\n        &#34;b&#34;: &#34;&lt;i&gt;&#34;\n      }\n")
	assert.Contains(t, got, "    body: not json\n")
	assert.Contains(t, got, "after &lt; 1 ms")
	assert.NotContains(t, got, "<details")

	long := `{"data":[` + strings.Repeat(`{"id":1},`, 20) + `{"id":2}]}`
	got = string(reportHTML("    body: " + long + "\n"))
	assert.Contains(t, got, `<details class="body"><summary>JSON, `)
}

func TestCodeHTML(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "With <code>OK</code>: a &lt;page&gt;", string(codeHTML("With `OK`: a <page>")))
}
