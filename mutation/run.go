package mutation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Config is a mutation run's settings; cmd/mutation's flags write into it.
type Config struct {
	Root       string        // the module's directory
	Seed       uint64        // the sample's seed
	Size       int           // viable mutants to run
	Killers    []Killer      // run in order against each mutant; the first that kills it ends its turn
	Bound      time.Duration // per killer command; 0: from the baseline (see bound)
	Work       string        // scratch directory (binaries, overlays, reports)
	Results    string        // the results file, written as the run goes
	ServerArgs []string      // extra flags of every server (the reference's and the mutants')
	Only       []string      // mutant ids to run instead of a sample
	Note       string        // what the report should say of the run
	Go         string        // the go command
	Progress   io.Writer     // a line per mutant, with an ETA

	// The whole enumeration (RunAll) only:
	Ledger string        // the ledger of every verdict (docs/mutation-ledger.jsonl)
	Limit  int           // mutants to try in this run at most (0: no limit)
	For    time.Duration // the run starts no mutant past this wall time (0: no limit)
}

// Run samples the mutants, builds and serves each, and runs the killers
// against it, writing every result to cfg.Results as it comes. Before any
// mutant, the killers run against the reference as it is: they must pass
// it, and their time sets the bound. It returns the record of the run; an
// interrupted run returns what it did and the context's error.
func Run(ctx context.Context, cfg Config) (*Record, error) {
	start := time.Now()
	if len(cfg.Killers) == 0 {
		return nil, errors.New("no killer")
	}
	files, all, err := EnumerateSources(cfg.Root)
	if err != nil {
		return nil, err
	}
	todo, err := pick(Order(all, cfg.Seed), cfg.Only)
	if err != nil {
		return nil, err
	}
	b := &Builder{Root: cfg.Root, Work: cfg.Work, Go: cfg.Go, Package: serverPackage}
	h := Header{Seed: cfg.Seed, Size: cfg.Size, Files: files, Enumerated: len(all), Started: start.UTC(),
		Commit: commit(cfg.Root, Dirs...), Only: cfg.Only, Note: cfg.Note}
	fmt.Fprintf(cfg.Progress, "mutation: %d mutants in %d files; seed %d; %d viable wanted\n", len(all), len(files), cfg.Seed, cfg.Size)
	judging, bound, err := cfg.baseline(ctx, b)
	if err != nil {
		return nil, err
	}
	h.Judging = judging
	rec := &Record{Header: h}
	w, err := newRecorder(cfg.Results, h)
	if err != nil {
		return nil, err
	}
	defer func() { _ = w.close() }()
	want := cfg.Size
	if len(cfg.Only) > 0 {
		want = len(todo)
	}
	p := progress{out: cfg.Progress, want: want, start: time.Now()}
	viable := 0
	for _, m := range todo {
		if viable >= want {
			break
		}
		r, err := cfg.try(ctx, b, m, bound)
		if err != nil {
			return rec, err
		}
		if r.Status != NotViable {
			viable++
		}
		rec.Results = append(rec.Results, r)
		if err := w.write(line{Result: &r}); err != nil {
			return rec, err
		}
		p.report(r, viable, len(rec.Results))
	}
	rec.Footer = &Footer{Seconds: time.Since(start).Seconds(), Viable: viable, Tried: len(rec.Results)}
	if viable < want {
		fmt.Fprintf(cfg.Progress, "mutation: only %d viable mutants exist, %d were wanted\n", viable, want)
	}
	return rec, w.write(line{Footer: rec.Footer})
}

// pick is the mutants of ids, in their order, or all when ids is empty.
func pick(ordered []Mutant, ids []string) ([]Mutant, error) {
	if len(ids) == 0 {
		return ordered, nil
	}
	var out []Mutant
	for _, id := range ids {
		i := slices.IndexFunc(ordered, func(m Mutant) bool { return m.ID() == id })
		if i < 0 {
			return nil, fmt.Errorf("no mutant %s in today's source (mutation list shows them)", id)
		}
		out = append(out, ordered[i])
	}
	return out, nil
}

// baseline builds the reference as it is and runs every killer against it:
// each must pass, or the run would count the killer's own failure as kills.
// It returns the killers with each one's time, and the bound per killer
// command (cfg.Bound, or five times the slowest baseline and at least a
// minute).
func (cfg Config) baseline(ctx context.Context, b *Builder) (Judging, time.Duration, error) {
	fmt.Fprintf(cfg.Progress, "mutation: building the reference and running each killer against it\n")
	bin, err := b.Build(ctx, nil)
	if err != nil {
		return Judging{}, 0, err
	}
	srv, err := startServer(ctx, bin, cfg.ServerArgs, 30*time.Second)
	if err != nil {
		return Judging{}, 0, fmt.Errorf("the reference: %w", err)
	}
	defer srv.stop()
	var j Judging
	slowest := time.Duration(0)
	for _, k := range cfg.Killers {
		bound := cmpOr(cfg.Bound, 10*time.Minute)
		o, err := k.run(ctx, cfg.Root, srv.url, filepath.Join(cfg.Work, "reports", "baseline-"+k.Name), bound)
		if err != nil {
			return Judging{}, 0, err
		}
		if o.Killed() {
			return Judging{}, 0, fmt.Errorf("killer %s fails the reference as it is (exit %d), so it would kill every mutant: %s",
				k.Name, o.Exit, strings.Join(o.Said, " / "))
		}
		fmt.Fprintf(cfg.Progress, "mutation: killer %s passes the reference in %.1fs\n", k.Name, o.Seconds)
		j.Killers, j.Baseline = append(j.Killers, k.String()), append(j.Baseline, o.Seconds)
		slowest = max(slowest, time.Duration(o.Seconds*float64(time.Second)))
	}
	bound := cmpOr(cfg.Bound, max(time.Minute, 5*slowest))
	fmt.Fprintf(cfg.Progress, "mutation: a killer running past %s kills its mutant\n", bound)
	j.BoundSec = bound.Seconds()
	return j, bound, nil
}

func cmpOr(d, fallback time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return fallback
}

// try builds, serves and judges one mutant.
func (cfg Config) try(ctx context.Context, b *Builder, m Mutant, bound time.Duration) (Result, error) {
	start := time.Now()
	r := Result{Mutant: m, ID: m.ID()}
	bin, err := b.Build(ctx, &m)
	var nv *NotViableError
	switch {
	case errors.As(err, &nv):
		r.Status, r.BuildError = NotViable, nv.Output
		r.Seconds = time.Since(start).Seconds()
		return r, nil
	case err != nil:
		return r, err
	}
	defer func() { _ = os.Remove(bin) }()
	srv, err := startServer(ctx, bin, cfg.ServerArgs, 30*time.Second)
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		r.Status, r.KilledBy, r.Because = Killed, "start", err.Error()
		r.Seconds = time.Since(start).Seconds()
		return r, nil
	}
	defer srv.stop()
	r.Status = Survived
	for _, k := range cfg.Killers {
		o, err := k.run(ctx, cfg.Root, srv.url, filepath.Join(cfg.Work, "reports", k.Name), bound)
		if err != nil {
			return r, err
		}
		r.Outcomes = append(r.Outcomes, o)
		if o.Killed() {
			r.Status, r.KilledBy, r.Because = Killed, k.Name, because(o, bound)
			break
		}
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// because says why a killer's outcome killed: the first failure its
// reports name (and how many more), a hang, or its last line.
func because(o Outcome, bound time.Duration) string {
	switch {
	case o.TimedOut:
		return fmt.Sprintf("ran past the bound of %s", bound)
	case len(o.Failures) > 1:
		return fmt.Sprintf("%s (and %d more)", o.Failures[0], len(o.Failures)-1)
	case len(o.Failures) == 1:
		return o.Failures[0]
	case len(o.Said) > 0:
		return fmt.Sprintf("exit %d: %s", o.Exit, o.Said[len(o.Said)-1])
	}
	return fmt.Sprintf("exit %d", o.Exit)
}

// commit is the source's commit, with "+changes" when the work tree
// differs from it in paths (files or folders, from root).
func commit(root string, paths ...string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output() //nolint:noctx // a quick local command
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	args := append([]string{"-C", root, "status", "--porcelain", "--"}, paths...)
	if st, err := exec.Command("git", args...).Output(); err == nil && len(st) > 0 { //nolint:noctx,gosec // a quick local command
		c += "+changes"
	}
	return c
}

// progress prints a line per tried mutant with the counts so far and an
// estimate of the time left.
type progress struct {
	out   io.Writer
	want  int  // viable mutants wanted, or mutants to try when all
	all   bool // the whole enumeration: count mutants tried, not viable ones
	start time.Time
	tally map[Status]int
}

func (p *progress) report(r Result, viable, tried int) {
	if p.tally == nil {
		p.tally = map[Status]int{}
	}
	p.tally[r.Status]++
	elapsed := time.Since(p.start)
	done := viable
	if p.all {
		done = tried
	}
	eta := "?"
	if done > 0 {
		// Time per viable (or tried) mutant so far, not-viable builds included.
		left := time.Duration(float64(elapsed) / float64(done) * float64(p.want-done))
		eta = left.Round(time.Second).String()
	}
	what := string(r.Status)
	switch r.Status {
	case Killed:
		what = "killed by " + r.KilledBy + ": " + r.Because
	case NotViable:
		what = "not viable: " + r.BuildError
	}
	count := fmt.Sprintf("%3d/%d viable, %d tried", viable, p.want, tried)
	if p.all {
		count = fmt.Sprintf("%3d/%d tried, %d not viable", tried, p.want, p.tally[NotViable])
	}
	fmt.Fprintf(p.out, "[%s, %d killed, %d survived; ETA %s] %s %s:%d %s: %s → %s (%.1fs): %s\n",
		count, p.tally[Killed], p.tally[Survived], eta,
		r.ID, r.File, r.Line, r.Operator, r.Original, shown(r.Mutated), r.Seconds, what)
}

// shown is a mutated snippet as people read it: a removed statement says so.
func shown(s string) string {
	if s == "" {
		return "(removed)"
	}
	return s
}
