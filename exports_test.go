package conformance_test

import (
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateExports = flag.Bool("update-exports", false, "write testdata/unused-exports.txt from the code")

// unusedExportsPath lists the exported names no other package uses.
const unusedExportsPath = "testdata/unused-exports.txt"

// TestUnusedExportsAreListed: an exported name that no other package uses
// (its own package's external tests aside) is a door to a room nobody
// enters: it widens what a reader must keep in mind, and it is usually a
// helper that should be unexported. The list of them is kept in
// testdata/unused-exports.txt, so that a change that adds one is seen in
// review (the test fails, naming it) and a change that removes one shrinks
// the list (go test -run TestUnusedExportsAreListed -update-exports .).
// Top-level functions, types, variables and constants are counted; methods
// and fields are not (they need type information). Generated code (api/)
// is left out.
func TestUnusedExportsAreListed(t *testing.T) {
	got := unusedExports(t)
	if *updateExports {
		if err := os.WriteFile(unusedExportsPath, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(unusedExportsPath)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(string(data))
	for _, name := range got {
		if !slices.Contains(want, name) {
			t.Errorf("%s is exported and no other package uses it: unexport it (or, when it is an API for users, list it in %s)", name, unusedExportsPath)
		}
	}
	for _, name := range want {
		if !slices.Contains(got, name) {
			t.Errorf("%s is listed in %s but is used, or gone: take it off the list (-update-exports)", name, unusedExportsPath)
		}
	}
	t.Logf("%d exported names used by no other package", len(got))
}

// unusedExports are the exported top-level names of the module's packages
// (but api/) that no file of another directory refers to, as
// "import/path.Name", sorted.
func unusedExports(t *testing.T) []string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		ImportPath, Dir, Name              string
		GoFiles, TestGoFiles, XTestGoFiles []string
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	fset := token.NewFileSet()
	parse := func(dir, name string) *ast.File {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	exported := map[string]bool{} // "path.Name"
	for _, p := range pkgs {
		if strings.HasSuffix(p.ImportPath, "/api") || p.Name == "main" {
			continue
		}
		for _, name := range p.GoFiles {
			for _, d := range parse(p.Dir, name).Decls {
				for _, n := range declNames(d) {
					if ast.IsExported(n) {
						exported[p.ImportPath+"."+n] = true
					}
				}
			}
		}
	}
	used := map[string]bool{}
	for _, p := range pkgs {
		files := append(append(slices.Clone(p.GoFiles), p.TestGoFiles...), p.XTestGoFiles...)
		for _, name := range files {
			f := parse(p.Dir, name)
			local := map[string]string{} // the name a file calls an import by → its path
			for _, im := range f.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				n := filepath.Base(path)
				if im.Name != nil {
					n = im.Name.Name
				}
				if path != p.ImportPath { // a package's external tests are its own
					local[n] = path
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && local[x.Name] != "" {
						used[local[x.Name]+"."+sel.Sel.Name] = true
					}
				}
				return true
			})
		}
	}
	var unused []string
	for name := range exported {
		if !used[name] {
			unused = append(unused, strings.TrimPrefix(name, "github.com/partnercommerce/conformance/"))
		}
	}
	slices.Sort(unused)
	return unused
}

// declNames are the names a top-level declaration declares (a method
// declares none at the top level).
func declNames(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			return []string{d.Name.Name}
		}
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
		return names
	}
	return nil
}
