package mutation

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"time"
)

// WriteLedgerReport writes docs/mutation.md from the ledger: the score over
// every mutant with a current verdict, how much of the enumeration that
// is, the parts of the ledger (the runs, with the date and commit of
// each), and the sections of a sample's report over those verdicts. It
// reads only the ledger, today's source and the classifications, so that
// mutation report --all rewrites it without running a mutant.
func WriteLedgerReport(out io.Writer, led *Ledger, src *Source, cls *Classifications) error {
	current, stale, untried := led.Verdicts(src)
	results := make([]Result, len(current))
	for i, e := range current {
		results[i] = e.Result
	}
	w := bufio.NewWriter(out)
	r := reporter{w: w, results: results, files: src.Files, cls: cls, t: Count(results, cls), in: "the ledger",
		positions: map[string]int{}}
	for _, m := range src.Mutants {
		r.positions[m.File]++
	}
	r.intro("`go run ./cmd/mutation report --all` rewrites this page from the ledger, [`docs/mutation-ledger.jsonl`](mutation-ledger.jsonl), and that file, without running a mutant.")
	r.ledgerScore(len(src.Mutants), len(stale), len(untried))
	r.parts(led, current)
	r.body()
	r.p("The order: every position is tried once, in the order of its rank, SHA-256 of the seed (1 unless `--seed` says")
	r.p("otherwise) and the mutant's identity, so that the positions a ledger holds, until it holds them all, are a random")
	r.p("sample of them. A verdict is kept with the hash of its file and the killer's hash, which covers the killers'")
	r.p("commands, the files they name (the profile), the Go and embedded files of the packages they and the server are built")
	r.p("from without the mutated files, `go.mod`, `go.sum` and the Go version. A run judges a mutant again when either hash")
	r.p("changed: a change of one file, the mutants of that file; a change of the suite, every mutant. A change of one mutated")
	r.p("file could in principle change the fate of another file's mutant, which keeps its verdict.")
	r.p("")
	r.whyOurOwn()
	return w.Flush()
}

func (r *reporter) ledgerScore(positions, stale, untried int) {
	t := r.t
	r.p("## Score")
	r.p("")
	r.p("**%s of the judged mutants killed: %d of %d** (goal: %.0f %%), over the %d positions of %d with a current", pct(t.Score()), t.Killed, t.Judged(), Goal*100, t.Tried, positions)
	r.p("verdict (%s). The judged mutants are the viable ones without the equivalent ones and the choices the document", pct(ratio(t.Tried, positions)))
	r.p("leaves open; a survivor that is neither counts against the score, whatever its class (a rule the run missed counts")
	r.p("against it until its check kills it). A verdict is current when it was judged with today's file and today's killer.")
	r.p("")
	r.p("| | mutants |")
	r.p("|---|---:|")
	r.p("| positions (every mutant of the %d files) | %d |", len(r.files), positions)
	r.p("| tried, with a current verdict | %d (%s) |", t.Tried, pct(ratio(t.Tried, positions)))
	r.p("| left: never tried | %d |", untried)
	r.p("| left: tried with another file or killer, to try again | %d |", stale)
	r.tallyRows(r.viableShare(positions))
	r.p("")
	if left := stale + untried; left > 0 {
		r.p("Resume: `make mutation` tries the %d positions left and keeps every current verdict; `MUTATION_ARGS=\"--for 1h\"`", left)
		r.p("or `\"--limit N\"` runs a piece of them.")
	} else {
		r.p("Every position has a current verdict. `make mutation` tries again only what a change of a file or of the killer")
		r.p("makes stale.")
	}
	r.p("`MUTATION_ARGS=\"--seed N --size N\"` runs a sample instead, for a quick look (its report: `reports/mutation/sample.md`).")
	r.p("")
}

// viableShare says what share of all the viable positions the viable
// verdicts are: exact once every position is tried, estimated from the
// share of viable ones among those tried before.
func (r *reporter) viableShare(positions int) string {
	t := r.t
	if t.Tried == positions {
		return "every viable position"
	}
	if t.Viable == 0 {
		return "of an unknown number of viable positions"
	}
	est := int(math.Round(float64(t.Viable) / float64(t.Tried) * float64(positions)))
	return fmt.Sprintf("%s of about %d viable positions, estimated from those tried", pct(ratio(t.Viable, est)), est)
}

// parts lists the ledger's parts, the runs whose verdicts it holds, with
// the date and commit of each, and the killers of the newest.
func (r *reporter) parts(led *Ledger, current []Entry) {
	r.p("## The parts of the ledger")
	r.p("")
	r.p("Each part is one run of `make mutation`, or the piece of it that ran (`--limit`, `--for`, or a run cut short,")
	r.p("which the next one resumes).")
	r.p("")
	r.p("| part | started | commit | killer hash | verdicts | current | ended | wall |")
	r.p("|---:|---|---|---|---:|---:|---|---:|")
	all, now := map[int]int{}, map[int]int{}
	for _, e := range led.Entries {
		all[e.Part]++
	}
	for _, e := range current {
		now[e.Part]++
	}
	var newest *Part
	for i, p := range led.Parts {
		ended, wall := p.Ended, "–"
		if ended == "" {
			ended = "cut short"
		}
		if p.Seconds > 0 {
			wall = (time.Duration(p.Seconds) * time.Second).String()
		}
		r.p("| %d | %s | `%s` | `%.12s` | %d | %d | %s | %s |", p.ID, p.Started.Format(time.DateTime+" MST"), p.Commit, p.KillerHash,
			all[p.ID], now[p.ID], ended, wall)
		if now[p.ID] > 0 {
			newest = &led.Parts[i]
		}
	}
	r.p("")
	if t := r.t; t.Tried > 0 {
		var secs float64
		for _, res := range r.results {
			secs += res.Seconds
		}
		r.p("A mutant took %.1f s on average (build, start and killers).", secs/float64(t.Tried))
		r.p("")
	}
	if newest != nil {
		r.killers(newest.Judging)
	}
	r.p("")
}
