package readable

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Body writes a JSON body as a failure shows it: indented, one member or
// item a line, numbers as written, with marks[p] noted after the line of
// the value at JSON pointer p ("◀ missing required property"). A body
// longer than limit lines keeps its first lines and those around each
// note, and folds the others into "… N lines …". A body that is not JSON
// comes back as it is, cut after limit lines' worth of bytes.
func Body(body []byte, marks map[string]string, limit int) string {
	lines, err := bodyLines(body, marks)
	if err != nil {
		return cutBytes(body, limit*80)
	}
	return fold(lines, limit)
}

// Note is what stands between a value's line and its note.
const Note = "   ◀ "

// bodyLine is one line of an indented body and its note, if any.
type bodyLine struct {
	depth int
	text  string
	note  string
}

// bodyLines indents body, noting the lines of the marked values.
func bodyLines(body []byte, marks map[string]string) ([]bodyLine, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	w := bodyWriter{dec: dec, marks: marks}
	if err := w.value(0, "", ""); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return w.lines, nil
}

// bodyWriter walks a JSON value token by token.
type bodyWriter struct {
	dec   *json.Decoder
	marks map[string]string
	lines []bodyLine
}

// value writes the next value of the stream, at depth, as member key
// (prefix `"key": `, or none) of the value at pointer ptr.
func (w *bodyWriter) value(depth int, prefix, ptr string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	note := w.marks[ptr]
	delim, isDelim := tok.(json.Delim)
	if !isDelim {
		w.lines = append(w.lines, bodyLine{depth, prefix + scalar(tok), note})
		return nil
	}
	closing := "}"
	if delim == '[' {
		closing = "]"
	}
	if !w.dec.More() {
		_, err := w.dec.Token()
		w.lines = append(w.lines, bodyLine{depth, prefix + string(delim) + closing, note})
		return err
	}
	w.lines = append(w.lines, bodyLine{depth, prefix + string(delim), note})
	for i := 0; w.dec.More(); i++ {
		child, childPrefix := fmt.Sprint(i), ""
		if delim == '{' {
			key, err := w.dec.Token()
			if err != nil {
				return err
			}
			child = fmt.Sprint(key)
			childPrefix = scalar(key) + ": "
		}
		if i > 0 {
			w.lines[len(w.lines)-1].text += ","
		}
		esc := strings.NewReplacer("~", "~0", "/", "~1")
		if err := w.value(depth+1, childPrefix, ptr+"/"+esc.Replace(child)); err != nil {
			return err
		}
	}
	_, err = w.dec.Token()
	w.lines = append(w.lines, bodyLine{depth, closing, ""})
	return err
}

// scalar writes a string, number, boolean or null token as JSON.
func scalar(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case json.Number:
		return v.String()
	case string:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		return strings.TrimSuffix(b.String(), "\n")
	}
	return fmt.Sprint(tok)
}

// Around a note, noteContext lines before and after stay unfolded, and
// the first headLines lines of a body always do.
const (
	noteContext = 2
	headLines   = 3
)

// fold writes lines, at most about limit of them: the first lines and
// those around each note, the others folded.
func fold(lines []bodyLine, limit int) string {
	keep := make([]bool, len(lines))
	budget := min(limit, len(lines))
	kept := 0
	mark := func(i int) {
		if i >= 0 && i < len(lines) && !keep[i] && kept < budget {
			keep[i] = true
			kept++
		}
	}
	for i := range headLines {
		mark(i)
	}
	mark(len(lines) - 1)
	for i, l := range lines {
		if l.note != "" {
			for j := i - noteContext; j <= i+noteContext; j++ {
				mark(j)
			}
		}
	}
	for i := 0; i < len(lines) && kept < budget; i++ {
		mark(i)
	}
	var b strings.Builder
	for i := 0; i < len(lines); {
		if !keep[i] {
			j, depth := i, lines[i].depth
			for j < len(lines) && !keep[j] {
				depth = min(depth, lines[j].depth)
				j++
			}
			fmt.Fprintf(&b, "%s… %s …\n", strings.Repeat("  ", depth), Plural(j-i, "line", "lines"))
			i = j
			continue
		}
		l := lines[i]
		b.WriteString(strings.Repeat("  ", l.depth) + l.text)
		if l.note != "" {
			b.WriteString(Note + l.note)
		}
		b.WriteByte('\n')
		i++
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// cutBytes is s cut after n bytes, saying how long it was.
func cutBytes(s []byte, n int) string {
	if len(s) <= n {
		return string(s)
	}
	return string(s[:n]) + fmt.Sprintf("… (%d bytes in all)", len(s))
}
