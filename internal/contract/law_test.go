package contract

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests of this file prove that the document's rules are written once,
// here, and that every judge (steps/, generative/, loadtest/, probe/, cmd/)
// calls them: each scans every non-test Go file of the module outside this
// package, reference/ (an implementation with its own domain, and beside
// it reference/variants, servers too: the reference's legal alternatives,
// which answer as a server would) and api/ (generated), and fails naming
// the file and line that writes a rule again.

// judgeFile is a parsed non-test Go file outside the contract.
type judgeFile struct {
	path string
	fset *token.FileSet
	file *ast.File
}

func judgeFiles(t *testing.T) []judgeFile {
	t.Helper()
	root := filepath.Join("..", "..")
	skip := []string{".git", "reference", filepath.Join("internal", "contract"), "api", "testdata", "node_modules", "reports"}
	var out []judgeFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if slices.Contains(skip, rel) || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, judgeFile{path: rel, fset: fset, file: f})
		return nil
	})
	require.NoError(t, err)
	var dirs []string
	for _, f := range out {
		dirs = append(dirs, strings.Split(f.path, string(filepath.Separator))[0])
	}
	for _, judge := range []string{"steps", "generative", "loadtest", "probe", "cmd"} {
		require.Contains(t, dirs, judge, "the judges' files were read")
	}
	return out
}

// stringLits calls fn with every string literal of f, unquoted, and its place.
func (f judgeFile) stringLits(fn func(s, at string)) {
	ast.Inspect(f.file, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				fn(s, f.at(lit))
			}
		}
		return true
	})
}

func (f judgeFile) at(n ast.Node) string {
	p := f.fset.Position(n.Pos())
	return f.path + ":" + strconv.Itoa(p.Line)
}

// sectionSevenMessages are the messages of section 7 (and the price plan
// message of section 1), as openapi.yaml carries them; "OK" is too short to
// tell a message from a word.
func sectionSevenMessages(t *testing.T) []string {
	t.Helper()
	out := []string{MsgPricePlan, PricePlanPrefix}
	for _, r := range MustRows() {
		if len(r.Message) > len(MsgOK) && !slices.Contains(out, r.Message) {
			out = append(out, r.Message)
		}
	}
	require.Greater(t, len(out), 25)
	return out
}

// TestMessagesAreTheSpecs: every message constant of messages.go is a
// message of openapi.yaml, and every message of openapi.yaml has one.
func TestMessagesAreTheSpecs(t *testing.T) {
	t.Parallel()
	constants := []string{MsgOK, msgSubCategoryNotFound, MsgSubCategoryInactive, msgQueryEmpty, MsgInvalidDestination,
		msgSubCategoryRequired, msgPageSizeMax, MsgSecretKeyInvalid, MsgTokenRequired, MsgTokenInvalidExpired,
		MsgSyncForbidden, MsgSynced, msgIncomplete, msgEmailTaken, MsgProfileUnloaded, MsgTokenInvalid,
		AccessDeniedPrefix, MsgCreated, msgProductRequired, msgMsisdnRequired, msgMethodRequired, msgTrxIDRequired,
		msgTrxIDTooLong, msgShiftCodeTooLong, msgMethodUnavailable, MsgInternalMethodFlag, msgLookupEmpty,
		MsgNotFound, msgPaymentNotFormed, MsgDuplicate}
	var spec []string
	for _, r := range MustRows() {
		if r.Message != "" && !slices.Contains(spec, r.Message) {
			spec = append(spec, r.Message)
		}
	}
	assert.ElementsMatch(t, spec, constants)
	for _, m := range constants {
		assert.NotEqual(t, "§7 (message "+m+")", MessageRow(m), "the row of %q is named", m)
	}
	doc, err := Spec()
	require.NoError(t, err)
	plan, _ := doc.Info.Extensions["x-messages"].(map[string]any)
	assert.Equal(t, MsgPricePlan, plan["pricePlanInactive"], "§1's price plan message")
	assert.True(t, strings.HasPrefix(MsgPricePlan, PricePlanPrefix))
}

// TestSectionSevenMessagesWrittenOnce: no judge writes a message of
// section 7 again; it names the contract's constant.
func TestSectionSevenMessagesWrittenOnce(t *testing.T) {
	t.Parallel()
	msgs := sectionSevenMessages(t)
	for _, f := range judgeFiles(t) {
		f.stringLits(func(s, at string) {
			for _, m := range msgs {
				if strings.Contains(s, m) {
					t.Errorf("%s: a string literal holds the section 7 message %q: use the constant of internal/contract/messages.go", at, m)
				}
			}
		})
	}
}

// TestOperatorPrefixesWrittenOnce: no judge writes a number prefix or the
// destination number format again.
func TestOperatorPrefixesWrittenOnce(t *testing.T) {
	t.Parallel()
	prefix := regexp.MustCompile(`^08[0-9]{2}$`)
	for _, f := range judgeFiles(t) {
		f.stringLits(func(s, at string) {
			if prefix.MatchString(s) {
				t.Errorf("%s: the operator prefix %q: use contract.OperatorPrefixes (internal/contract/msisdn.go)", at, s)
			}
			if strings.Contains(s, "08[0-9]") || strings.Contains(s, `08\d`) {
				t.Errorf("%s: the destination number format %q: use contract.ValidMsisdn", at, s)
			}
		})
	}
}

// TestCoinRateWrittenOnce: no judge converts coins and rupiah itself
// (a coin quantity divided or multiplied by 2); it calls contract.CoinValue
// or contract.CoinsFor.
func TestCoinRateWrittenOnce(t *testing.T) {
	t.Parallel()
	for _, f := range judgeFiles(t) {
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op != token.QUO && n.Op != token.MUL && n.Op != token.SHR && n.Op != token.SHL {
					return true
				}
				for _, side := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					lit, ok := side[1].(*ast.BasicLit)
					if ok && (lit.Value == "2" || (lit.Value == "1" && n.Op != token.QUO && n.Op != token.MUL)) && mentionsCoins(side[0]) {
						t.Errorf("%s: a coin rate (coins %s %s): use contract.CoinValue or contract.CoinsFor", f.at(n), n.Op, lit.Value)
					}
				}
			case *ast.ValueSpec:
				for _, name := range n.Names {
					if strings.Contains(strings.ToLower(name.Name), "perrupiah") {
						t.Errorf("%s: the coin rate %s: use contract.CoinsPerRupiah", f.at(name), name.Name)
					}
				}
			}
			return true
		})
	}
}

// mentionsCoins reports whether an expression names a coin quantity.
func mentionsCoins(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && strings.Contains(strings.ToLower(id.Name), "coin") {
			found = true
		}
		return !found
	})
	return found
}

// TestSubCategoriesWrittenOnce: no judge lists the document's sub
// categories again (naming one, as a fixture does, is not a list).
func TestSubCategoriesWrittenOnce(t *testing.T) {
	t.Parallel()
	for _, f := range judgeFiles(t) {
		ast.Inspect(f.file, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			named := 0
			for _, e := range cl.Elts {
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, _ := strconv.Unquote(lit.Value); slices.Contains(subCategories, s) {
						named++
					}
				}
			}
			if named > 1 {
				t.Errorf("%s: a list of the document's sub categories: use contract.SubCategories", f.at(cl))
			}
			return true
		})
	}
}

// TestSpecReadOnce: only the contract loads openapi.yaml for judging
// (operations, documented statuses, section 7 rows, the validator) and
// reads an operation's statuses from it; a judge calls contract.Spec,
// contract.Operations or contract.MustRows.
func TestSpecReadOnce(t *testing.T) {
	t.Parallel()
	for _, f := range judgeFiles(t) {
		ast.Inspect(f.file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if sel.Sel.Name == "GetSpec" {
				t.Errorf("%s: reads openapi.yaml itself (api.GetSpec): use contract.Spec, Operations or MustRows", f.at(sel))
			}
			if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "Responses" && (sel.Sel.Name == "Value" || sel.Sel.Name == "Map" || sel.Sel.Name == "Status") {
				t.Errorf("%s: reads an operation's documented statuses from openapi.yaml itself: use contract.Operation.Documents or MustRows", f.at(sel))
			}
			return true
		})
	}
}

// TestReadingsWrittenOnce: no judge writes a reading outside the registry
// of readings.go.
func TestReadingsWrittenOnce(t *testing.T) {
	t.Parallel()
	for _, f := range judgeFiles(t) {
		ast.Inspect(f.file, func(n ast.Node) bool {
			if cl, ok := n.(*ast.CompositeLit); ok {
				if sel, ok := cl.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Reading" {
					t.Errorf("%s: a reading written outside internal/contract/readings.go", f.at(cl))
				}
			}
			return true
		})
	}
}

// TestJudgesCallTheContract: the three judges import the contract, and the
// generated mode judges by it alone, not through the suite.
func TestJudgesCallTheContract(t *testing.T) {
	t.Parallel()
	const module = "github.com/partnercommerce/conformance/"
	imports := map[string]map[string]bool{}
	for _, f := range judgeFiles(t) {
		dir := filepath.ToSlash(filepath.Dir(f.path))
		if imports[dir] == nil {
			imports[dir] = map[string]bool{}
		}
		for _, imp := range f.file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			imports[dir][strings.TrimPrefix(p, module)] = true
			if dir == "generative" && p == module+"steps" {
				t.Errorf("%s imports steps: the generated mode judges by internal/contract", f.path)
			}
		}
	}
	for _, judge := range []string{"steps", "generative", "loadtest", "probe"} {
		assert.True(t, imports[judge]["internal/contract"], "%s calls internal/contract", judge)
	}
}
