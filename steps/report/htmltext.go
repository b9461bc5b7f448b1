package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"strings"

	"github.com/partnercommerce/conformance/internal/readable"
)

// The conformance page renders text the suite wrote for the console (the
// text of a failure, a condition of section 7) as HTML: JSON bodies
// pretty-printed and long ones folded, `code` spans as code.

// foldLines is the number of lines of a pretty-printed body shown unfolded.
const foldLines = 12

// failureHTML renders the text of a failure: each "body: <json>" line becomes the
// pretty-printed JSON, folded in a <details> when longer than foldLines.
func failureHTML(text string) template.HTML {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		indent, rest, ok := cutBody(line)
		if !ok {
			b.WriteString(markedLine(line))
			continue
		}
		pretty, ok := prettyJSON(rest)
		if !ok {
			b.WriteString(template.HTMLEscapeString(line))
			continue
		}
		n := strings.Count(pretty, "\n") + 1
		body := template.HTMLEscapeString(indentLines(pretty, indent+"  "))
		if n > foldLines {
			fmt.Fprintf(&b, "%sbody: <details class=\"body\"><summary>JSON, %d lines</summary>%s\n</details>", indent, n, body)
		} else {
			fmt.Fprintf(&b, "%sbody:\n%s\n", indent, body)
		}
	}
	return template.HTML(b.String()) // every part is escaped
}

// markedLine escapes a line, its note beside a value of a body marked.
func markedLine(line string) string {
	value, note, ok := strings.Cut(line, readable.Note)
	if !ok {
		return template.HTMLEscapeString(line)
	}
	trimmed := strings.TrimRight(note, "\n")
	return template.HTMLEscapeString(value) + `   <mark class="note">◀ ` + template.HTMLEscapeString(trimmed) + "</mark>" + note[len(trimmed):]
}

// cutBody splits "    body: {...}\n" into its indent and the body.
func cutBody(line string) (indent, body string, ok bool) {
	trimmed := strings.TrimLeft(line, " ")
	rest, ok := strings.CutPrefix(trimmed, "body: ")
	if !ok {
		return "", "", false
	}
	return line[:len(line)-len(trimmed)], strings.TrimRight(rest, "\n"), true
}

// prettyJSON indents a JSON value, keeping its numbers as written.
func prettyJSON(s string) (string, bool) {
	var buf bytes.Buffer
	if !json.Valid([]byte(s)) || json.Indent(&buf, []byte(s), "", "  ") != nil {
		return "", false
	}
	return buf.String(), true
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

var codeSpanRe = regexp.MustCompile("`([^`]+)`")

// codeHTML renders `spans` of a sentence as code.
func codeHTML(s string) template.HTML {
	return template.HTML(codeSpanRe.ReplaceAllString(template.HTMLEscapeString(s), "<code>$1</code>")) // escaped first
}
