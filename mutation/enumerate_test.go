package mutation

import (
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixture(t testing.TB) []byte {
	t.Helper()
	src, err := os.ReadFile("testdata/operators.go.txt")
	require.NoError(t, err)
	return src
}

// change is a mutant as a test names it.
type change struct {
	op             Operator
	fn, orig, mutd string
}

func changes(ms []Mutant) []change {
	out := make([]change, len(ms))
	for i, m := range ms {
		out[i] = change{m.Operator, m.Func, m.Original, m.Mutated}
	}
	return out
}

func TestEnumerateFindsEachOperator(t *testing.T) {
	t.Parallel()
	ms, err := EnumerateFile("fixture/operators.go", fixture(t))
	require.NoError(t, err)
	got := changes(ms)
	for _, want := range []change{
		{ConditionalsNegation, "(*T).Check", "n > limit", "n <= limit"},
		{ConditionalsBoundary, "(*T).Check", "n > limit", "n >= limit"},
		{InvertLogical, "(*T).Check", "n > limit && ok", "n > limit || ok"},
		{InvertCondition, "(*T).Check", "ok", "!ok"},
		{InvertCondition, "(*T).Check", "t.ready()", "!t.ready()"},
		{InvertCondition, "(*T).Check", "!ok", "ok"},
		{ArithmeticBase, "(*T).Check", "n * 3", "n / 3"},
		{InvertAssignments, "(*T).Check", "n += 2", "n -= 2"},
		{InvertAssignments, "(*T).Check", "n++", "n--"},
		{BooleanLiteral, "(*T).Check", "ok = true", "ok = false"},
		{ErrorReturnDropped, "(*T).Check", "return errBad", ""},
		{ErrorReturnDropped, "load", "return 0, err", ""},
		{MessageString, "var errBad", `errors.New("bad input")`, `errors.New("bad inpu")`},
		{MessageString, "(T).ready", `t.Name != ""`, `t.Name != "mutant"`},
		{IntegerConstant, "const limit", "limit = 50", "limit = 51"},
		{IntegerConstant, "const limit", "limit = 50", "limit = 49"},
		{IntegerConstant, "(*T).Check", "n += 2", "n += 3"},
		{IntegerConstant, "parse", "return 1, nil", "return 0, nil"},
	} {
		assert.Contains(t, got, want)
	}
}

func TestEnumerateLeavesAloneWhatNoClientReadsOrNoChangeCompiles(t *testing.T) {
	t.Parallel()
	ms, err := EnumerateFile("fixture/operators.go", fixture(t))
	require.NoError(t, err)
	for _, m := range ms {
		assert.NotContains(t, m.Mutated, "make([]int, 0, 9)", "the capacity of make: %s", m)
		assert.NotContains(t, m.Mutated, "make([]int, 0, 7)", "the capacity of make: %s", m)
		for _, never := range []string{`"errors"`, `json:"name"`, `"checked"`, "n+1", "[12]byte"} {
			if m.Original == never || strings.Contains(m.Original, never) && m.Operator != InvertCondition {
				t.Errorf("mutant of a position left alone (%s): %s", never, m)
			}
		}
		// A return that ends its function, a nil error return, and the
		// returns of functions without an error result are kept.
		assert.NotEqual(t, "return nil", m.Original, m.String())
		assert.NotEqual(t, "return v, nil", m.Original, m.String())
	}
	assert.NotContains(t, changes(ms), change{ErrorReturnDropped, "(T).ready", `return t.Name != ""`, ""})
	assert.NotContains(t, changes(ms), change{ErrorReturnDropped, "parse", "return 1, nil", ""})
}

func TestEveryMutantParsesAndChangesOnlyItsRange(t *testing.T) {
	t.Parallel()
	src := fixture(t)
	ms, err := EnumerateFile("fixture/operators.go", src)
	require.NoError(t, err)
	require.NotEmpty(t, ms)
	for _, m := range ms {
		out := m.Apply(src)
		_, err := parser.ParseFile(token.NewFileSet(), "", out, 0)
		require.NoError(t, err, m.String())
		assert.Equal(t, string(src[:m.Start]), string(out[:m.Start]), m.String())
		assert.Equal(t, string(src[m.End:]), string(out[m.Start+len(m.Replacement):]), m.String())
		before, after := m.Lines(src)
		assert.NotEqual(t, before, after, m.String())
	}
}

// TestIdentitySurvivesLineShifts: the keys are the same when lines are
// added above and within a function, though the lines differ.
func TestIdentitySurvivesLineShifts(t *testing.T) {
	t.Parallel()
	src := fixture(t)
	shifted := strings.Replace(string(src), "const limit = 50\n", "// A comment.\n\nconst limit = 50\n\n", 1)
	shifted = strings.Replace(shifted, "\tn += 2\n", "\n\t// two\n\tn += 2\n", 1)
	a, err := EnumerateFile("fixture/operators.go", src)
	require.NoError(t, err)
	b, err := EnumerateFile("fixture/operators.go", []byte(shifted))
	require.NoError(t, err)
	require.Len(t, b, len(a))
	lineMoved := false
	for i := range a {
		assert.Equal(t, a[i].Key, b[i].Key)
		assert.Equal(t, a[i].ID(), b[i].ID())
		lineMoved = lineMoved || a[i].Line != b[i].Line
	}
	assert.True(t, lineMoved, "the shifted source moved no line")
}

// TestRepeatedChangesAreNumbered: the same change of the same snippet in
// one function gets occurrences 1, 2, ..., and so distinct ids.
func TestRepeatedChangesAreNumbered(t *testing.T) {
	t.Parallel()
	src := []byte("package p\n\nfunc f(a, b error) error {\n\tif a != nil {\n\t\treturn a\n\t}\n\tif a != nil {\n\t\treturn b\n\t}\n\treturn nil\n}\n")
	ms, err := EnumerateFile("p.go", src)
	require.NoError(t, err)
	var ids []string
	var occ []int
	for _, m := range ms {
		if m.Operator == ConditionalsNegation {
			ids = append(ids, m.ID())
			occ = append(occ, m.Occurrence)
		}
	}
	assert.Equal(t, []int{1, 2}, occ)
	require.Len(t, ids, 2)
	assert.NotEqual(t, ids[0], ids[1])
}

func TestFunctionNames(t *testing.T) {
	t.Parallel()
	src := []byte("package p\n\ntype S struct{}\n\nvar a, b = 1, 2\n\nfunc (s *S) M() int {\n\tvar x = 3\n\treturn x\n}\n\nfunc (S) V() bool { return true }\n\nfunc F() int { return 4 }\n")
	ms, err := EnumerateFile("p.go", src)
	require.NoError(t, err)
	names := map[string]string{}
	for _, m := range ms {
		names[m.Original] = m.Func
	}
	assert.Equal(t, "var a, b", names["a, b = 1, 2"])
	assert.Equal(t, "(*S).M", names["x = 3"])
	assert.Equal(t, "(S).V", names["return true"])
	assert.Equal(t, "F", names["return 4"])
}

// TestLongSnippetsAreCutAroundTheChange: a long context is cut to the
// change and its neighbourhood, still telling its two sides apart.
func TestLongSnippetsAreCutAroundTheChange(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	src := []byte("package p\n\nvar v = f(\"" + long + "\", 1, \"" + long + "\")\n\nfunc f(a string, n int, b string) int { return n }\n")
	ms, err := EnumerateFile("p.go", src)
	require.NoError(t, err)
	i := slices.IndexFunc(ms, func(m Mutant) bool { return m.Operator == IntegerConstant && m.Func == "var v" && m.Replacement == "2" })
	require.GreaterOrEqual(t, i, 0)
	m := ms[i]
	assert.LessOrEqual(t, len([]rune(m.Original)), maxContext+len("1")+len("……"))
	assert.True(t, strings.HasPrefix(m.Original, "…") && strings.HasSuffix(m.Original, "…"), m.Original)
	assert.NotEqual(t, m.Original, m.Mutated)
	assert.Contains(t, m.Mutated, ", 2, ")
}

// TestSourcesAreTheDomainAndTheGlue: the files of the reference's domain
// and its HTTP glue, without tests, faults and durable storage.
func TestSourcesAreTheDomainAndTheGlue(t *testing.T) {
	t.Parallel()
	files, err := Sources("..")
	require.NoError(t, err)
	assert.Contains(t, files, "reference/payments.go")
	assert.Contains(t, files, "reference/httpapi/handlers.go")
	for _, f := range files {
		assert.False(t, strings.HasSuffix(f, "_test.go"), f)
		assert.NotContains(t, []string{"faults.go", "journal.go", "state.go", "recovery.go", "repair.go", "commits.go"}, f[strings.LastIndex(f, "/")+1:])
		assert.False(t, strings.HasPrefix(f[strings.LastIndex(f, "/")+1:], "datasync_"), f)
		assert.False(t, strings.HasPrefix(f[strings.LastIndex(f, "/")+1:], "lock_"), f)
	}
	all, err := Enumerate("..", files)
	require.NoError(t, err)
	seen := map[Key]bool{}
	for _, m := range all {
		assert.False(t, seen[m.Key], "two mutants share a key: %s", m)
		seen[m.Key] = true
	}
}
