package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFailureHTML: the JSON bodies of a failure's text are pretty-printed, escaped, and
// folded when long; other lines are kept as written.
func TestFailureHTML(t *testing.T) {
	t.Parallel()
	text := "found: got <b>\n  request:  POST /x\n    body: {\"a\":1,\"b\":\"<i>\"}\n  response: 200 OK after < 1 ms\n    body: not json\n"
	got := string(failureHTML(text))
	assert.Contains(t, got, "found: got &lt;b&gt;")
	assert.Contains(t, got, "    body:\n      {\n        &#34;a&#34;: 1,\n        &#34;b&#34;: &#34;&lt;i&gt;&#34;\n      }\n")
	assert.Contains(t, got, "    body: not json\n")
	assert.Contains(t, got, "after &lt; 1 ms")
	assert.NotContains(t, got, "<details")

	long := `{"data":[` + strings.Repeat(`{"id":1},`, 20) + `{"id":2}]}`
	got = string(failureHTML("    body: " + long + "\n"))
	assert.Contains(t, got, `<details class="body"><summary>JSON, `)
}

func TestCodeHTML(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "With <code>OK</code>: a &lt;page&gt;", string(codeHTML("With `OK`: a <page>")))
}
