package mutation

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Dirs are the folders whose Go files make mutation mutates: the
// reference's domain and its HTTP glue.
var Dirs = []string{"reference", "reference/httpapi"}

// Exclusion is a file pattern left out of the mutation, and why.
type Exclusion struct {
	Pattern string // path.Match pattern of a file's base name
	Why     string
}

// Excluded are the files of Dirs that are not mutated.
var Excluded = []Exclusion{
	{"*_test.go", "tests: they are not the reference"},
	{"faults.go", "fault injection: its table of declarations (and httpapi's wireFaults), wrong on purpose, and off unless --fault is given"},
	{"journal*.go", "durable storage (--state): not the domain, and off in the run, which serves from memory"},
	{"state.go", "durable storage: replaying the journal"},
	{"records.go", "durable storage: the journal's record codec"},
	{"recovery.go", "durable storage: recovering a journal"},
	{"repair.go", "durable storage: --repair"},
	{"commits.go", "durable storage: the journal's commit observer"},
	{"datasync_*.go", "durable storage: fdatasync"},
	{"lock_*.go", "durable storage: the state directory's lock"},
}

// excludedWhy is why a file is not mutated, or "" when it is.
func excludedWhy(name string) string {
	for _, e := range Excluded {
		if ok, _ := path.Match(e.Pattern, path.Base(name)); ok {
			return e.Why
		}
	}
	return ""
}

// Sources lists the files to mutate under root, the module's directory, as
// slash paths from root (reference/payments.go), sorted.
func Sources(root string) ([]string, error) {
	var files []string
	for _, dir := range Dirs {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name := path.Join(dir, e.Name())
			if e.IsDir() || !strings.HasSuffix(name, ".go") || excludedWhy(name) != "" {
				continue
			}
			files = append(files, name)
		}
	}
	slices.Sort(files)
	return files, nil
}

// Enumerate returns every mutant of files (slash paths from root), in file
// order, then position, then operator. Besides the files Excluded names,
// these positions are left alone, since no client can read them or no
// change of them compiles: import paths, struct tags, the arguments of
// logging calls (slog's Debug, Info, Warn, Error and their Context forms,
// Log, LogAttrs), array lengths in types, and the capacity arguments of
// make.
func Enumerate(root string, files []string) ([]Mutant, error) {
	var all []Mutant
	for _, name := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		ms, err := EnumerateFile(name, src)
		if err != nil {
			return nil, err
		}
		all = append(all, ms...)
	}
	return all, nil
}

// EnumerateSources is every mutant of the files Sources lists under root,
// with the files.
func EnumerateSources(root string) ([]string, []Mutant, error) {
	files, err := Sources(root)
	if err != nil {
		return nil, nil, err
	}
	all, err := Enumerate(root, files)
	return files, all, err
}

// EnumerateFile returns the mutants of one file's source; name is the slash
// path the mutants carry.
func EnumerateFile(name string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	w := &walker{name: name, src: src, tf: fset.File(f.Pos()), skip: map[ast.Node]bool{}, cond: map[ast.Expr]bool{}}
	w.markSkipped(f)
	ast.Inspect(f, w.visit)
	return w.finish(), nil
}

// walker collects the mutants of one file as ast.Inspect walks it.
type walker struct {
	name  string
	src   []byte
	tf    *token.File
	stack []ast.Node
	skip  map[ast.Node]bool // subtrees left alone
	cond  map[ast.Expr]bool // expressions read as conditions
	out   []Mutant
	seen  map[[2]int]([]string) // replacements already made at a range
}

// markSkipped records the subtrees Enumerate leaves alone.
func (w *walker) markSkipped(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			w.skip[n] = true
		case *ast.Field:
			if n.Tag != nil {
				w.skip[n.Tag] = true
			}
		case *ast.ArrayType:
			if n.Len != nil {
				w.skip[n.Len] = true
			}
		case *ast.CallExpr:
			if isLogCall(n) {
				w.skip[n] = true
			}
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "make" {
				capArg := 2 // make([]T, len, cap)
				if _, isMap := n.Args[0].(*ast.MapType); isMap {
					capArg = 1 // make(map[K]V, hint)
				}
				if len(n.Args) > capArg {
					w.skip[n.Args[capArg]] = true
				}
			}
		}
		return true
	})
}

// logMethods are the logging calls whose arguments no client reads.
var logMethods = map[string]bool{
	"Debug": true, "Info": true, "Warn": true, "Error": true,
	"DebugContext": true, "InfoContext": true, "WarnContext": true, "ErrorContext": true,
	"Log": true, "LogAttrs": true,
}

func isLogCall(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	return ok && logMethods[sel.Sel.Name] && len(c.Args) > 0
}

func (w *walker) visit(n ast.Node) bool {
	if n == nil {
		w.stack = w.stack[:len(w.stack)-1]
		return true
	}
	if w.skip[n] {
		return false
	}
	w.markConditions(n)
	switch n := n.(type) {
	case *ast.BinaryExpr:
		w.binary(n)
	case *ast.UnaryExpr:
		if n.Op == token.NOT {
			w.add(InvertCondition, n, n.Pos(), n.X.Pos(), "")
		}
	case *ast.AssignStmt:
		if to, ok := assignSwaps[n.Tok]; ok {
			w.add(InvertAssignments, n, n.TokPos, n.TokPos+token.Pos(len(n.Tok.String())), to.String())
		}
	case *ast.IncDecStmt:
		to := map[token.Token]string{token.INC: "--", token.DEC: "++"}[n.Tok]
		w.add(InvertAssignments, n, n.TokPos, n.TokPos+2, to)
	case *ast.Ident:
		if n.Name == "true" || n.Name == "false" {
			w.add(BooleanLiteral, w.context(n), n.Pos(), n.End(), map[string]string{"true": "false", "false": "true"}[n.Name])
		}
	case *ast.BasicLit:
		w.literal(n)
	case *ast.ReturnStmt:
		w.returnStmt(n)
	}
	if e, ok := n.(ast.Expr); ok && w.cond[e] && !isComparisonOrLogic(e) {
		if u, ok := e.(*ast.UnaryExpr); !ok || u.Op != token.NOT {
			w.add(InvertCondition, e, e.Pos(), e.End(), "!"+wrap(w.text(e.Pos(), e.End()), e))
		}
	}
	w.stack = append(w.stack, n)
	return true
}

// markConditions records the expressions n reads as conditions: the
// condition of an if or a for, the cases of a switch without tag, and the
// operands of && and || among them.
func (w *walker) markConditions(n ast.Node) {
	var conds []ast.Expr
	switch n := n.(type) {
	case *ast.IfStmt:
		conds = append(conds, n.Cond)
	case *ast.ForStmt:
		if n.Cond != nil {
			conds = append(conds, n.Cond)
		}
	case *ast.SwitchStmt:
		if n.Tag == nil {
			for _, s := range n.Body.List {
				conds = append(conds, s.(*ast.CaseClause).List...)
			}
		}
	case *ast.BinaryExpr:
		if w.cond[n] && (n.Op == token.LAND || n.Op == token.LOR) {
			conds = append(conds, n.X, n.Y)
		}
	case *ast.ParenExpr:
		if w.cond[n] {
			conds = append(conds, n.X)
		}
	}
	for _, c := range conds {
		w.cond[c] = true
	}
}

func isComparisonOrLogic(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		_, cmp := negations[e.Op]
		return cmp || e.Op == token.LAND || e.Op == token.LOR
	case *ast.ParenExpr:
		return true // its content is the condition
	}
	return false
}

// wrap is text ready to follow a !: as it is when it is an operand, in
// parentheses otherwise.
func wrap(text string, e ast.Expr) string {
	switch e.(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.CallExpr, *ast.IndexExpr, *ast.ParenExpr:
		return text
	}
	return "(" + text + ")"
}

// The token swaps, gremlins' tables for the operators that share its names.
var (
	negations = map[token.Token]token.Token{
		token.EQL: token.NEQ, token.NEQ: token.EQL,
		token.LSS: token.GEQ, token.GEQ: token.LSS,
		token.GTR: token.LEQ, token.LEQ: token.GTR,
	}
	boundaries = map[token.Token]token.Token{
		token.LSS: token.LEQ, token.LEQ: token.LSS,
		token.GTR: token.GEQ, token.GEQ: token.GTR,
	}
	logicals    = map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}
	arithmetics = map[token.Token]token.Token{
		token.ADD: token.SUB, token.SUB: token.ADD,
		token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL,
	}
	assignSwaps = map[token.Token]token.Token{
		token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN,
		token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN,
	}
)

func (w *walker) binary(n *ast.BinaryExpr) {
	from, to := n.OpPos, n.OpPos+token.Pos(len(n.Op.String()))
	if t, ok := negations[n.Op]; ok {
		w.add(ConditionalsNegation, n, from, to, t.String())
	}
	if t, ok := boundaries[n.Op]; ok {
		w.add(ConditionalsBoundary, n, from, to, t.String())
	}
	if t, ok := logicals[n.Op]; ok {
		w.add(InvertLogical, n, from, to, t.String())
	}
	if t, ok := arithmetics[n.Op]; ok && !concatenation(n) {
		w.add(ArithmeticBase, n, from, to, t.String())
	}
}

// concatenation reports whether n adds a string literal: a concatenation,
// whose + no swap compiles.
func concatenation(n *ast.BinaryExpr) bool {
	return n.Op == token.ADD && (isString(n.X) || isString(n.Y))
}

// isString reports whether e is a string literal.
func isString(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING
}

func (w *walker) literal(n *ast.BasicLit) {
	switch n.Kind {
	case token.STRING:
		s, err := strconv.Unquote(n.Value)
		if err != nil {
			return
		}
		if s == "" {
			s = "mutant"
		} else {
			_, size := utf8.DecodeLastRuneInString(s)
			s = s[:len(s)-size]
		}
		quoted := strconv.Quote(s)
		if strings.HasPrefix(n.Value, "`") && !strings.Contains(s, "`") {
			quoted = "`" + s + "`"
		}
		w.add(MessageString, w.context(n), n.Pos(), n.End(), quoted)
	case token.INT:
		v, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			return
		}
		w.add(IntegerConstant, w.context(n), n.Pos(), n.End(), strconv.FormatInt(v+1, 10))
		if v > 0 {
			w.add(IntegerConstant, w.context(n), n.Pos(), n.End(), strconv.FormatInt(v-1, 10))
		}
	case token.CHAR:
		r, _, _, err := strconv.UnquoteChar(n.Value[1:len(n.Value)-1], '\'')
		if err != nil {
			return
		}
		w.add(IntegerConstant, w.context(n), n.Pos(), n.End(), strconv.QuoteRune(r+1))
		if r > 0 {
			w.add(IntegerConstant, w.context(n), n.Pos(), n.End(), strconv.QuoteRune(r-1))
		}
	}
}

// returnStmt drops a return of an error: in a function whose last result
// is an error, a return whose last value is not nil, unless it is the last
// statement of the function (without it the function does not compile).
func (w *walker) returnStmt(n *ast.ReturnStmt) {
	typ, body := w.enclosingFunc()
	if typ == nil || typ.Results == nil || len(n.Results) == 0 {
		return
	}
	last := typ.Results.List[len(typ.Results.List)-1].Type
	if id, ok := last.(*ast.Ident); !ok || id.Name != "error" {
		return
	}
	if id, ok := n.Results[len(n.Results)-1].(*ast.Ident); ok && id.Name == "nil" {
		return
	}
	if len(body.List) > 0 && body.List[len(body.List)-1] == n {
		return
	}
	w.add(ErrorReturnDropped, n, n.Pos(), n.End(), "")
}

// enclosingFunc is the type and body of the innermost function (a
// declaration or a literal) around the node being visited.
func (w *walker) enclosingFunc() (*ast.FuncType, *ast.BlockStmt) {
	for i := len(w.stack) - 1; i >= 0; i-- {
		switch f := w.stack[i].(type) {
		case *ast.FuncDecl:
			return f.Type, f.Body
		case *ast.FuncLit:
			return f.Type, f.Body
		}
	}
	return nil, nil
}

// funcName names where the node being visited is: its function
// ("(*Store).CreatePayment", "validPhoneNumber"), or its package-level
// declaration ("var ErrTrxIDUsed", "const defaultPage", "type policy").
func (w *walker) funcName() string {
	for i := len(w.stack) - 1; i >= 0; i-- {
		if d, ok := w.stack[i].(*ast.FuncDecl); ok {
			if d.Recv == nil || len(d.Recv.List) == 0 {
				return d.Name.Name
			}
			return "(" + w.text(d.Recv.List[0].Type.Pos(), d.Recv.List[0].Type.End()) + ")." + d.Name.Name
		}
	}
	for i := len(w.stack) - 1; i > 0; i-- {
		switch d := w.stack[i].(type) {
		case *ast.ValueSpec:
			names := make([]string, len(d.Names))
			for j, id := range d.Names {
				names[j] = id.Name
			}
			return w.stack[i-1].(*ast.GenDecl).Tok.String() + " " + strings.Join(names, ", ")
		case *ast.TypeSpec:
			return "type " + d.Name.Name
		}
	}
	return "package"
}

// context is the node whose text shows a literal's change: its parent
// (a comparison, a key and value, an assignment, a call ...), which
// snippets cuts around the change when it is long, or else the literal.
func (w *walker) context(n ast.Node) ast.Node {
	if len(w.stack) == 0 {
		return n
	}
	switch p := w.stack[len(w.stack)-1].(type) {
	case *ast.BinaryExpr, *ast.KeyValueExpr, *ast.AssignStmt, *ast.ValueSpec, *ast.ReturnStmt,
		*ast.CallExpr, *ast.IndexExpr, *ast.UnaryExpr, *ast.SliceExpr, *ast.CaseClause:
		return p
	}
	return n
}

// maxContext is the longest snippet shown whole; a longer one is cut
// around the change.
const maxContext = 100

// add records the mutant that replaces the text from..to with repl, shown
// within the text of ctx.
func (w *walker) add(op Operator, ctx ast.Node, from, to token.Pos, repl string) {
	start, end := w.tf.Offset(from), w.tf.Offset(to)
	if w.seen == nil {
		w.seen = map[[2]int][]string{}
	}
	at := [2]int{start, end}
	if slices.Contains(w.seen[at], repl) {
		return
	}
	w.seen[at] = append(w.seen[at], repl)
	cs, ce := w.tf.Offset(ctx.Pos()), w.tf.Offset(ctx.End())
	before := string(w.src[cs:ce])
	after := before[:start-cs] + repl + before[end-cs:]
	orig, mut := snippets(before, after, start-cs, len(repl), end-start)
	w.out = append(w.out, Mutant{
		Key:      Key{File: w.name, Func: w.funcName(), Original: orig, Mutated: mut},
		Operator: op, Line: w.tf.Line(from), Start: start, End: end, Replacement: repl,
	})
}

// snippets are before and after (a context's text and the same with the
// change at offset at: replLen bytes for oldLen) normalized, and cut around
// the change when they are long.
func snippets(before, after string, at, replLen, oldLen int) (string, string) {
	if len(normalize(before)) <= maxContext {
		return normalize(before), normalize(after)
	}
	const side = maxContext / 2
	lo := max(at-side, 0)
	for lo > 0 && !utf8.RuneStart(before[lo]) {
		lo--
	}
	cut := func(s string, changed int) string {
		hi := min(at+changed+side, len(s))
		for hi < len(s) && !utf8.RuneStart(s[hi]) {
			hi++
		}
		out := normalize(s[lo:hi])
		if lo > 0 {
			out = "…" + out
		}
		if hi < len(s) {
			out += "…"
		}
		return out
	}
	return cut(before, oldLen), cut(after, replLen)
}

// normalize collapses runs of white space (line breaks included) into one
// space, so that reformatting a snippet keeps its identity.
func normalize(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func (w *walker) text(from, to token.Pos) string {
	return string(w.src[w.tf.Offset(from):w.tf.Offset(to)])
}

// finish numbers the occurrences of equal keys and sorts the mutants by
// position, then operator, then replacement.
func (w *walker) finish() []Mutant {
	slices.SortStableFunc(w.out, func(a, b Mutant) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		if c := strings.Compare(string(a.Operator), string(b.Operator)); c != 0 {
			return c
		}
		return strings.Compare(a.Replacement, b.Replacement)
	})
	count := map[Key]int{}
	for i := range w.out {
		k := w.out[i].Key
		count[k]++
		w.out[i].Occurrence = count[k]
	}
	return w.out
}
