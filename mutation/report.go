package mutation

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Goal is the share of judged mutants (Tally.Judged) the run must kill.
const Goal = 0.95

// WriteReport writes docs/mutation.md: the score, a table per file and per
// operator, every survivor with its class, the rules found missing and now
// checked, the killed and the not viable mutants, and what is mutated and
// why. It reads only the record and the classifications, so a changed
// classification is written without running the mutants again (mutation
// report).
func WriteReport(out io.Writer, rec *Record, cls *Classifications) error {
	w := bufio.NewWriter(out)
	r := reporter{w: w, results: rec.Results, files: rec.Header.Files, cls: cls, t: Count(rec.Results, cls), in: "this sample"}
	r.intro("`go run ./cmd/mutation report` rewrites this page from the last run's results and that file, without running the mutants again.")
	r.score(rec)
	r.body()
	r.p("The sample: every mutant is ranked by SHA-256 of the seed and its identity, and tried in that order until the")
	r.p("wanted number is viable. The order depends on the seed and the source only, and a change of one file moves only")
	r.p("that file's mutants in or out of the sample.")
	r.p("")
	r.whyOurOwn()
	return w.Flush()
}

// body is the sections of a report after its score: per file and per
// operator, the survivors by class, the rules now checked, the killed and
// the not viable mutants, and what is mutated.
func (r *reporter) body() {
	r.perFile()
	r.perOperator()
	r.survivors()
	r.nowChecked()
	r.classifiedButKilled()
	r.killed()
	r.notViable()
	r.scope()
}

type reporter struct {
	w       *bufio.Writer
	results []Result // the verdicts counted
	files   []string // every file mutated
	cls     *Classifications
	t       Tally
	in      string // what the verdicts are: "this sample", or "the ledger"
	// positions counts each file's mutants, for a report of the ledger
	// (nil for a sample's).
	positions map[string]int
}

func (r *reporter) p(format string, args ...any) { fmt.Fprintf(r.w, format+"\n", args...) }

func (r *reporter) intro(rewrite string) {
	r.p("# Mutation of the reference: what the conformance run misses")
	r.p("")
	r.p("Written by `make mutation` (`cmd/mutation`, package `mutation`); do not edit it by hand. The classification of the")
	r.p("survivors is data, in [`mutation/survivors.yaml`](../mutation/survivors.yaml), keyed by each mutant's file,")
	r.p("function, and snippet before and after the change (so that it holds when lines move):")
	r.p("%s", rewrite)
	r.p("")
	r.p("Each mutant is the reference with one mechanical change of its domain (`reference/*.go`) or its HTTP glue")
	r.p("(`reference/httpapi/*.go`): a condition negated or its boundary shifted, `+` for `-`, a boolean flipped, an error")
	r.p("return dropped, a message string or an integer constant changed ([what is mutated](#what-is-mutated)). Each is")
	r.p("built with `go build -overlay` (the one file replaced, nothing copied), started with the embedded data set on a free")
	r.p("port of the loopback, and judged by the killers below, the same commands an implementer runs: a mutant is **killed**")
	r.p("when a killer exits non-zero against it (a failure, an INCOMPLETE or STOPPED run, a target it could not test) or")
	r.p("runs past the bound, or when the server does not start; a mutant that does not compile is **not viable** and left")
	r.p("out. Every survivor is classified: **equivalent** (no client can tell it from the reference), **a choice the document")
	r.p("leaves open** (the sentence is quoted; [reference-choices.md](reference-choices.md) lists it), **observable only under")
	r.p("load** (the load tester's job; how it caught it is said), or **a rule the run missed** (a check was added, and the")
	r.p("mutant is killed since).")
	r.p("")
}

func (r *reporter) score(rec *Record) {
	h, t := rec.Header, r.t
	r.p("## Score")
	r.p("")
	if rec.Footer == nil {
		r.p("**This run was interrupted: the figures below cover only the mutants it tried.**")
		r.p("")
	}
	r.p("**%s of the judged mutants killed: %d of %d** (goal: %.0f %%). The judged mutants are the viable ones without the", pct(t.Score()), t.Killed, t.Judged(), Goal*100)
	r.p("equivalent ones and the choices the document leaves open; a survivor that is neither counts against the score,")
	r.p("whatever its class (a rule the run missed counts against it until its check kills it).")
	r.p("")
	r.p("| | mutants |")
	r.p("|---|---:|")
	r.p("| enumerated (every position of the %d files) | %d |", len(h.Files), h.Enumerated)
	r.p("| tried, in the seed's order, until %d were viable | %d |", h.Size, t.Tried)
	r.tallyRows("")
	r.p("")
	r.p("The run: seed %d, commit `%s`, started %s", h.Seed, h.Commit, h.Started.Format(time.DateTime+" MST"))
	if f := rec.Footer; f != nil {
		r.p("and took %s wall (%.1f s a mutant tried).", (time.Duration(f.Seconds) * time.Second).String(), f.Seconds/float64(max(f.Tried, 1)))
	} else {
		r.p("(interrupted).")
	}
	r.killers(h.Judging)
	if h.Note != "" {
		r.p("")
		r.p("%s", h.Note)
	}
	if len(h.Only) > 0 {
		r.p("")
		r.p("This run tried only the mutants named on its command line (`--only`), not a sample.")
	}
	r.p("")
	r.p("Rerun: `make mutation` (seed %d, %d viable; `MUTATION_ARGS=\"--seed N --size N\"` for another sample).", h.Seed, h.Size)
	r.p("")
}

// tallyRows are the rows of the score's table from the not viable
// mutants on; viable says more of the viable ones, when not empty.
func (r *reporter) tallyRows(viable string) {
	t := r.t
	if viable != "" {
		viable = " (" + viable + ")"
	}
	r.p("| not viable (they do not compile) | %d |", t.NotViable)
	r.p("| **viable** | **%d**%s |", t.Viable, viable)
	r.p("| killed | %d (%s) |", t.Killed, r.killedBy())
	r.p("| survived | %d |", t.Survived)
	for _, c := range Classes {
		r.p("| &nbsp;&nbsp;%s | %d |", classTitle[c], t.Survivors[c])
	}
	r.p("| &nbsp;&nbsp;not classified yet | %d |", t.Unclassified)
	r.p("| judged (viable − equivalent − open choice) | %d |", t.Judged())
	r.p("| raw mutation score (killed / viable) | %s |", pct(ratio(t.Killed, t.Viable)))
}

// killers lists the killers with their time against the reference as it
// is, and their bound.
func (r *reporter) killers(j Judging) {
	r.p("Killers, in order (the first that kills a mutant ends its turn), each bounded by %s:", time.Duration(j.BoundSec*float64(time.Second)))
	r.p("")
	for i, k := range j.Killers {
		base := ""
		if i < len(j.Baseline) {
			base = fmt.Sprintf(" (passes the reference as it is in %.1f s)", j.Baseline[i])
		}
		r.p("- `%s`%s", k, base)
	}
}

func (r *reporter) killedBy() string {
	names := make([]string, 0, len(r.t.KilledBy))
	for k := range r.t.KilledBy {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, r.t.KilledBy[n])
	}
	return strings.Join(parts, ", ")
}

var classTitle = map[Class]string{
	Equivalent: "equivalent",
	OpenChoice: "a choice the document leaves open",
	LoadOnly:   "observable only under load",
	Missed:     "a rule the run missed",
}

func (r *reporter) perFile() {
	r.p("## Per file")
	r.p("")
	head, rule, all := "", "", ""
	if r.positions != nil {
		head, rule = "positions | tried | ", "---:|---:|"
		n := 0
		for _, c := range r.positions {
			n += c
		}
		all = fmt.Sprintf("%d | %d | ", n, len(r.results))
	}
	r.p("| file | %sviable | killed | equivalent | open choice | load only | missed | not classified | score |", head)
	r.p("|---|%s---:|---:|---:|---:|---:|---:|---:|---:|", rule)
	byFile := map[string][]Result{}
	for _, res := range r.results {
		byFile[res.File] = append(byFile[res.File], res)
	}
	for _, f := range r.files {
		t := Count(byFile[f], r.cls)
		lead := ""
		if r.positions != nil {
			if r.positions[f] == 0 {
				continue
			}
			lead = fmt.Sprintf("%d | %d | ", r.positions[f], t.Tried)
		} else if t.Viable == 0 {
			continue
		}
		r.p("| `%s` | %s%d | %d | %d | %d | %d | %d | %d | %s |", f, lead, t.Viable, t.Killed, t.Survivors[Equivalent], t.Survivors[OpenChoice],
			t.Survivors[LoadOnly], t.Survivors[Missed], t.Unclassified, scoreOf(t))
	}
	t := r.t
	r.p("| **all** | %s%d | %d | %d | %d | %d | %d | %d | **%s** |", all, t.Viable, t.Killed, t.Survivors[Equivalent], t.Survivors[OpenChoice],
		t.Survivors[LoadOnly], t.Survivors[Missed], t.Unclassified, pct(t.Score()))
	r.p("")
	if r.positions == nil {
		r.p("A file of the domain or the glue that is not in the table had no viable mutant in this sample; a dash is a file")
		r.p("whose every viable mutant is equivalent or an open choice.")
	} else {
		r.p("A file's positions are its mutants today, and those tried the ones with a current verdict (a file without a")
		r.p("position is left out); a dash is a file without a judged mutant: none tried yet, or every viable one equivalent or")
		r.p("an open choice.")
	}
	r.p("")
}

func (r *reporter) perOperator() {
	r.p("## Per operator")
	r.p("")
	r.p("| operator | tried | not viable | viable | killed | survived |")
	r.p("|---|---:|---:|---:|---:|---:|")
	for _, op := range Operators {
		var rs []Result
		for _, res := range r.results {
			if res.Operator == op {
				rs = append(rs, res)
			}
		}
		t := Count(rs, r.cls)
		r.p("| `%s` | %d | %d | %d | %d | %d |", op, t.Tried, t.NotViable, t.Viable, t.Killed, t.Survived)
	}
	r.p("")
}

func (r *reporter) survivors() {
	r.p("## Survivors")
	r.p("")
	var unclassified []Result
	byClass := map[Class][]Result{}
	for _, res := range sorted(r.results, Survived) {
		if c, ok := r.cls.Find(res.Key); ok {
			byClass[c.Class] = append(byClass[c.Class], res)
		} else {
			unclassified = append(unclassified, res)
		}
	}
	if len(unclassified) > 0 {
		r.p("### Not classified yet (%d)", len(unclassified))
		r.p("")
		r.p("Each needs an entry in `mutation/survivors.yaml` (its key is printed with it).")
		r.p("")
		for _, res := range unclassified {
			r.p("- %s", mutantLine(res))
			r.warned(res)
			r.p("  ```yaml")
			r.p("  - id: %s", res.ID)
			r.p("    file: %s", res.File)
			r.p("    func: %s", yamlString(res.Func))
			r.p("    original: %s", yamlString(res.Original))
			r.p("    mutated: %s", yamlString(res.Mutated))
			if res.Occurrence > 1 {
				r.p("    occurrence: %d", res.Occurrence)
			}
			r.p("  ```")
		}
		r.p("")
	}
	order := []Class{Missed, LoadOnly, OpenChoice, Equivalent}
	for _, c := range order {
		rs := byClass[c]
		r.p("### %s (%d)", upperFirst(classTitle[c]), len(rs))
		r.p("")
		if len(rs) == 0 {
			r.p("None in %s.", r.in)
			r.p("")
			continue
		}
		for _, res := range rs {
			e, _ := r.cls.Find(res.Key)
			r.p("- %s", mutantLine(res))
			r.p("  %s", e.Why)
			r.warned(res)
			if e.Sentence != "" {
				r.p("  The document: %s", e.Sentence)
			}
			if e.Load != "" {
				r.p("  Under load: %s", e.Load)
			}
			if e.Check != "" {
				r.p("  Check added: %s", e.Check)
			}
		}
		r.p("")
	}
}

// warned says which readings the killers warned of for a survivor: the
// run noticed it, as a reading of the document not followed (--strict
// makes that a failure).
func (r *reporter) warned(res Result) {
	var ws []string
	for _, o := range res.Outcomes {
		for _, w := range o.Warnings {
			if !slices.Contains(ws, w) {
				ws = append(ws, w)
			}
		}
	}
	if len(ws) > 0 {
		r.p("  The run warned of it (%s not followed; --strict fails it).", strings.Join(ws, ", "))
	}
}

// nowChecked lists the killed mutants the classification file names as a
// rule the run missed: the check added for each, and what killed it.
func (r *reporter) nowChecked() {
	r.p("## Rules found missing, now checked")
	r.p("")
	r.p("Survivors of an earlier run that were a rule the run did not check; a check was added for each, and this run kills")
	r.p("the mutant with it.")
	r.p("")
	n := 0
	for _, res := range r.results {
		e, ok := r.cls.Find(res.Key)
		if res.Status != Killed || !ok || e.Class != Missed {
			continue
		}
		n++
		r.p("- %s", mutantLine(res))
		r.p("  %s", e.Why)
		r.p("  Check added: %s", e.Check)
		r.p("  Killed by %s: %s", res.KilledBy, res.Because)
	}
	if n == 0 {
		r.p("None in %s.", r.in)
	}
	r.p("")
}

// classifiedButKilled lists killed mutants classified as anything but a
// missed rule: either the classification is stale, or the run fails a
// server it should pass (an equivalent mutant or an open choice killed is
// a false failure to look into).
func (r *reporter) classifiedButKilled() {
	var rs []Result
	for _, res := range r.results {
		if e, ok := r.cls.Find(res.Key); ok && res.Status == Killed && e.Class != Missed {
			rs = append(rs, res)
		}
	}
	if len(rs) == 0 {
		return
	}
	r.p("## Classified as surviving, yet killed (%d)", len(rs))
	r.p("")
	r.p("An equivalent mutant or an open choice that a killer fails is a false failure of the run; a load-only one killed is")
	r.p("the concurrency probe at work. Look at each, and update its entry.")
	r.p("")
	for _, res := range rs {
		e, _ := r.cls.Find(res.Key)
		r.p("- %s (classified %s) killed by %s: %s", mutantLine(res), e.Class, res.KilledBy, res.Because)
	}
	r.p("")
}

func (r *reporter) killed() {
	r.p("## Killed mutants")
	r.p("")
	r.p("| id | where | operator | change | killed by |")
	r.p("|---|---|---|---|---|")
	for _, res := range sorted(r.results, Killed) {
		r.p("| `%s` | `%s:%d` %s | %s | %s → %s | %s: %s |", res.ID, res.File, res.Line, cell(code(res.Func)), res.Operator,
			cell(code(res.Original)), cell(code(shown(res.Mutated))), res.KilledBy, cell(res.Because))
	}
	r.p("")
}

func (r *reporter) notViable() {
	rs := sorted(r.results, NotViable)
	r.p("## Not viable (%d)", len(rs))
	r.p("")
	r.p("They do not compile, so no server could behave like them; they are tried and left out of the score.")
	r.p("")
	for _, res := range rs {
		r.p("- `%s` `%s:%d` %s: %s → %s: %s", res.ID, res.File, res.Line, res.Operator, code(res.Original), code(shown(res.Mutated)), res.BuildError)
	}
	r.p("")
}

func (r *reporter) scope() {
	r.p("## What is mutated")
	r.p("")
	r.p("Every Go file of `reference/` and `reference/httpapi/` but these:")
	r.p("")
	r.p("| files | why they are left out |")
	r.p("|---|---|")
	for _, e := range Excluded {
		r.p("| `%s` | %s |", e.Pattern, e.Why)
	}
	r.p("")
	r.p("The durable storage (`--state`) is not the domain: it keeps what the domain decided, and the run serves from")
	r.p("memory, as `make conformance` does; its own tests, crash tests and `make chaos` judge it.")
	r.p("")
	r.p("Within the files, these positions are left alone, since no client reads them or no change of them compiles: import")
	r.p("paths, struct tags, the arguments of logging calls (slog's `Debug`, `Info`, `Warn`, `Error`, their `Context` forms,")
	r.p("`Log`, `LogAttrs`), array lengths in types, and the capacity arguments of `make`.")
	r.p("")
	r.p("| operator | change |")
	r.p("|---|---|")
	for _, op := range Operators {
		r.p("| `%s` | %s |", op, operatorDoc[op])
	}
	r.p("")
}

// whyOurOwn says why package mutation enumerates its mutants itself.
func (r *reporter) whyOurOwn() {
	r.p("### Why our own enumerator")
	r.p("")
	r.p("[gremlins](https://github.com/go-gremlins/gremlins) v0.5.0, the Go mutation tool we looked at, cannot serve here:")
	r.p("its engine and mutators are `internal` packages, so no program can import them; its command enumerates positions")
	r.p("only after a coverage run of `go test`, and judges mutants with `go test`, where our killer is the conformance run")
	r.p("against a served binary; and its mutators are token swaps only (no message strings, no integer constants, no")
	r.p("dropped error returns, no negated conditions that are not comparisons). Package `mutation` walks the syntax tree")
	r.p("with `go/ast` instead (about 400 lines), and takes gremlins' token tables and operator names for the swaps it has.")
	r.p("")
}

var operatorDoc = map[Operator]string{
	ConditionalsNegation: "a comparison turned into its opposite: `==` and `!=`, `<` and `>=`, `>` and `<=`",
	ConditionalsBoundary: "a comparison's boundary shifted: `<` and `<=`, `>` and `>=`",
	InvertLogical:        "`&&` and `\\|\\|` swapped",
	InvertCondition:      "a condition that is not a comparison negated (`x` becomes `!x` in an `if`, a `for`, a `case` of a switch without tag, or an operand of `&&` and `\\|\\|` there), and any `!x` made `x`",
	ArithmeticBase:       "`+` and `-`, `*` and `/` swapped, `%` made `*` (not `+` beside a string literal: a concatenation)",
	InvertAssignments:    "`+=` and `-=`, `*=` and `/=`, `++` and `--` swapped",
	BooleanLiteral:       "`true` and `false` flipped",
	ErrorReturnDropped:   "a `return` of an error removed (its last value is not `nil`, in a function whose last result is an `error`; not the last statement of the function)",
	MessageString:        "a string literal's last character dropped (an empty one becomes `\"mutant\"`)",
	IntegerConstant:      "an integer or character literal plus one, and minus one when above zero",
}

// mutantLine is a mutant in a list: id, place, function, operator and the
// change.
func mutantLine(res Result) string {
	return fmt.Sprintf("`%s` `%s:%d` %s, %s: %s → %s", res.ID, res.File, res.Line, code(res.Func), res.Operator, code(res.Original), code(shown(res.Mutated)))
}

// sorted is the results of status st by file and line.
func sorted(results []Result, st Status) []Result {
	var out []Result
	for _, res := range results {
		if res.Status == st {
			out = append(out, res)
		}
	}
	slices.SortStableFunc(out, func(a, b Result) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// code is s as a Markdown code span, fenced with more backticks than it
// holds in a row.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// cell escapes the pipes of a table cell (GitHub reads \| as | in code spans
// of a table too).
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// yamlString quotes s for the YAML snippet of an unclassified survivor.
func yamlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func pct(f float64) string { return fmt.Sprintf("%.1f %%", f*100) }

// scoreOf is a tally's score, or a dash when it judged nothing (every
// viable mutant equivalent or an open choice).
func scoreOf(t Tally) string {
	if t.Judged() == 0 {
		return "–"
	}
	return pct(t.Score())
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
