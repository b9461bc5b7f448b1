package steps_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/steps/stepstest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	stepstest.Cleanup()
	os.Exit(code)
}

// fixtureMessages reads testdata/section7_messages.txt: exact messages and prefixes.
func fixtureMessages(t *testing.T) (exact, prefixes []string) {
	t.Helper()
	data, err := os.ReadFile("testdata/section7_messages.txt")
	require.NoError(t, err)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "prefix: "):
			prefixes = append(prefixes, strings.TrimPrefix(line, "prefix: "))
		default:
			exact = append(exact, line)
		}
	}
	sort.Strings(exact)
	sort.Strings(prefixes)
	return exact, prefixes
}

// specMessages collects x-messages and x-message-prefixes from openapi.yaml.
func specMessages(t *testing.T) (exact, prefixes []string) {
	t.Helper()
	doc, err := api.GetSpec()
	require.NoError(t, err)
	seen := map[string]bool{}
	seenP := map[string]bool{}
	collect := func(ext map[string]any) {
		add := func(key string, into map[string]bool) {
			switch v := ext[key].(type) {
			case []any:
				for _, m := range v {
					into[m.(string)] = true
				}
			case map[string]any:
				for _, m := range v {
					into[m.(string)] = true
				}
			}
		}
		add("x-messages", seen)
		add("x-message-prefixes", seenP)
	}
	collect(doc.Info.Extensions)
	for _, r := range doc.Components.Responses {
		collect(r.Value.Extensions)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, r := range op.Responses.Map() {
				collect(r.Value.Extensions)
			}
		}
	}
	for m := range seen {
		exact = append(exact, m)
	}
	for m := range seenP {
		prefixes = append(prefixes, m)
	}
	sort.Strings(exact)
	sort.Strings(prefixes)
	return exact, prefixes
}

// TestMessagesOfTheDocumentAreAsserted: every message of section 7 and the
// price plan message of section 1 (from openapi.yaml, cross-checked against
// the fixture taken from the document) is written in a feature file and was
// asserted by a passing run against the reference.
func TestMessagesOfTheDocumentAreAsserted(t *testing.T) {
	exact, prefixes := specMessages(t)
	fxExact, fxPrefixes := fixtureMessages(t)
	assert.Equal(t, fxExact, exact, "openapi.yaml x-messages and the document's section 7 disagree")
	assert.Equal(t, fxPrefixes, prefixes, "openapi.yaml x-message-prefixes and the document's section 7 disagree")

	if doc, err := os.ReadFile("../../shared/seed/000_3677f434ed9118e4.txt"); err == nil {
		for _, m := range append(append([]string{}, fxExact...), fxPrefixes...) {
			assert.Contains(t, string(doc), m, "the fixture holds a message the document does not")
		}
	}

	var text strings.Builder
	require.NoError(t, fs.WalkDir(features.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(features.FS, path)
		text.Write(data)
		return err
	}))
	all := text.String()
	inFeatures := func(m string) bool {
		return strings.Contains(all, `"`+m+`"`) || strings.Contains(all, `"`+m+`" `) ||
			containsCell(all, m)
	}
	for _, m := range append(append([]string{}, exact...), prefixes...) {
		assert.True(t, inFeatures(m), "no scenario asserts %q", m)
	}

	res := stepstest.FullRun(t).Result
	asserted := map[string]bool{}
	for _, m := range res.Summary.Coverage.Messages {
		asserted[m] = true
	}
	for _, m := range append(append([]string{}, exact...), prefixes...) {
		assert.True(t, asserted[m], "the run against the reference never asserted %q", m)
	}
}

// containsCell reports whether m is a whole cell of an Examples table.
func containsCell(text, m string) bool {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		for _, cell := range strings.Split(line, "|") {
			if strings.TrimSpace(cell) == m {
				return true
			}
		}
	}
	return false
}

// notReachable are documented statuses no conformant server can be made to
// answer from outside: the 500 "System fault" of the product endpoints,
// whose message "follows the server error message". (The profile's 500 is
// reachable through fixtures.broken_profile_token and is required.)
var notReachable = map[string]bool{"listproducts 500": true, "syncproducts 500": true}

// TestDocumentedStatusesAreExercised: every status code openapi.yaml
// documents for an operation (default excluded) was received from the
// reference during a run.
func TestDocumentedStatusesAreExercised(t *testing.T) {
	res := stepstest.FullRun(t).Result
	ops := res.Summary.Coverage.Operations
	require.Len(t, ops, 7)
	for op, oc := range ops {
		for _, code := range oc.Documented {
			key := fmt.Sprintf("%s %d", strings.ToLower(op), code)
			if notReachable[key] {
				continue
			}
			assert.Contains(t, oc.Exercised, code, "%s: the documented status %d was never received", op, code)
		}
	}
}
