// Command mutation measures what the conformance run misses by mutating
// the reference server (package mutation; make mutation runs it).
//
//	mutation run --all [flags]  the whole enumeration, resumed from the ledger; write docs/mutation.md
//	mutation [run] [flags]      sample mutants, build, serve and judge each; write reports/mutation/sample.md
//	mutation report [--all]     rewrite the report from the ledger (or the last sample) and the classification file
//	mutation list [flags]       every mutant, in the order the seed's sample tries them
//	mutation show ID            one mutant's change, the lines before and after
//	mutation serve [--addr A] ID  build one mutant and serve it until Ctrl-C (for a load test by hand)
//
// Exit codes: 0 the run met the goal with every survivor classified, 1 it
// did not (the score below the goal, or a survivor not classified yet),
// 2 usage error or a run that could not be carried out (a killer that
// fails the reference as it is), 130 interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/partnercommerce/conformance/internal/atomicfile"
	"github.com/partnercommerce/conformance/internal/cli"
	"github.com/partnercommerce/conformance/mutation"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const (
	exitOK          = 0
	exitBelowGoal   = 1
	exitUsage       = 2
	exitInterrupted = 130
)

const usageText = `usage: mutation run --all [--limit N] [--for DURATION] [--ledger FILE] [flags]
       mutation [run] [--seed N] [--size N] [--killer NAME=COMMAND ...] [flags]
       mutation report [--all] [--results FILE] [--ledger FILE] [--classes FILE] [--doc FILE]
       mutation list [--seed N]
       mutation show ID
       mutation serve [--addr ADDR] ID

Mutates the reference server one change at a time (reference/*.go and
reference/httpapi/*.go, without tests, faults and durable storage), builds
each mutant, serves it with the embedded data set on a free loopback port,
and runs the killers against it: a killer that exits non-zero, or runs past
the bound, kills it. The killers run first against the reference as it is,
which they must pass.

--all tries every position that the ledger (--ledger) holds no current
verdict of: a verdict is kept with the hash of its file and of the killer
(its commands, the files they name, the code they and the server are
built from), and is judged again when either changed. Each verdict is
added to the ledger as it comes; --limit and --for run a piece, and an
interrupted run keeps what it did: the next run resumes. It writes
docs/mutation.md from the ledger, with every survivor classified from
--classes. --limit or --for alone imply --all.

Without --all, a sample: mutants in the seed's order until --size are
viable, the results as they come in --results, the report in
reports/mutation/sample.md.

A killer is NAME=COMMAND, split at white space; {target} is the mutant's
URL, {reports} a directory for its reports. Default:
  ` + mutation.DefaultKiller + `

Exit codes: 0 the goal met and every survivor classified, 1 not, 2 usage
error or a run that could not be carried out, 130 interrupted.

Flags:
`

// killers collects repeated --killer flags.
type killers []mutation.Killer

func (k *killers) String() string { return fmt.Sprint(*k) }

func (k *killers) Set(s string) error {
	kl, err := mutation.ParseKiller(s)
	if err != nil {
		return err
	}
	*k = append(*k, kl)
	return nil
}

// stringList collects a repeated flag, comma-separated values included.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	for f := range strings.SplitSeq(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*s = append(*s, f)
		}
	}
	return nil
}

type flags struct {
	cfg                mutation.Config
	killers            killers
	only, serverArgs   stringList
	classes, doc, addr string
	all                bool
	set                map[string]bool // the flags given
}

// The reports each mode writes unless --doc says otherwise.
const (
	ledgerDoc = "docs/mutation.md"
	sampleDoc = "reports/mutation/sample.md"
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := "run"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("mutation", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usageText); fs.PrintDefaults() }
	f := flags{cfg: mutation.Config{Progress: stdout}}
	f.register(fs)
	pos, err := cli.Parse(fs, args, "mutation", "usage: mutation [run|report|list|show ID|serve ID] [flags]")
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "mutation: %v\n", err)
		return exitUsage
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if err := f.mode(); err != nil {
		fmt.Fprintf(stderr, "mutation: %v\n", err)
		return exitUsage
	}
	f.cfg.Only, f.cfg.ServerArgs = f.only, f.serverArgs
	f.cfg.Killers = f.killers
	if len(f.cfg.Killers) == 0 {
		k, _ := mutation.ParseKiller(mutation.DefaultKiller)
		f.cfg.Killers = []mutation.Killer{k}
	}
	if f.cfg.Root, err = os.Getwd(); err != nil {
		fmt.Fprintf(stderr, "mutation: %v\n", err)
		return exitUsage
	}
	switch {
	case cmd == "run" && f.all:
		err = runAll(ctx, &f, stdout, stderr)
	case cmd == "run":
		err = runMutants(ctx, &f, stdout, stderr)
	case cmd == "report" && f.all:
		err = reportAll(ctx, f, stdout, stderr)
	case cmd == "report":
		err = report(f, stdout, stderr)
	case cmd == "list":
		err = list(f.cfg, stdout)
	case cmd == "show":
		err = show(f.cfg, pos, stdout)
	case cmd == "serve":
		err = serve(ctx, f, pos, stdout)
	default:
		err = usageErr{fmt.Errorf("unknown command %q", cmd)}
	}
	return exitCode(ctx, err, stderr)
}

// register defines the flags on fs.
func (f *flags) register(fs *flag.FlagSet) {
	fs.Uint64Var(&f.cfg.Seed, "seed", 1, "seed of the sample")
	fs.IntVar(&f.cfg.Size, "size", 150, "viable mutants to run")
	fs.Var(&f.killers, "killer", "killer command NAME=COMMAND (repeatable; default: "+mutation.DefaultKiller+")")
	fs.DurationVar(&f.cfg.Bound, "bound", 0, "time bound of each killer command against a mutant (0: five times its time against the reference, at least 1m)")
	fs.StringVar(&f.cfg.Results, "results", "reports/mutation/results.jsonl", "results file, written as the run goes")
	fs.StringVar(&f.classes, "classes", "mutation/survivors.yaml", "classification file of the survivors")
	fs.StringVar(&f.doc, "doc", "", "report to write (default: "+ledgerDoc+" with --all, "+sampleDoc+" without)")
	fs.BoolVar(&f.all, "all", false, "every position, resumed from the ledger (make mutation), instead of a sample")
	fs.StringVar(&f.cfg.Ledger, "ledger", "docs/mutation-ledger.jsonl", "the ledger of every verdict (--all)")
	fs.IntVar(&f.cfg.Limit, "limit", 0, "--all: try at most N mutants in this run (0: every one left)")
	fs.DurationVar(&f.cfg.For, "for", 0, "--all: start no mutant after this much wall time (0: no bound)")
	fs.StringVar(&f.cfg.Work, "work", "", "scratch directory (default: a fresh one under the system's temporary directory, removed at the end)")
	fs.Var(&f.only, "only", "mutant ids to run instead of a sample (comma-separated or repeated); the report is written only with --doc")
	fs.Var(&f.serverArgs, "server-arg", "extra flag of every server started (repeatable)")
	fs.StringVar(&f.cfg.Go, "go", "go", "the go command")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:18400", "address of mutation serve")
	fs.StringVar(&f.cfg.Note, "note", "", "a paragraph the report prints under the killers (run: kept in the results; report: replaces the results' own)")
}

// mode settles --all and the report's path: --limit and --for imply --all,
// which takes no sample's flags.
func (f *flags) mode() error {
	f.all = f.all || f.set["limit"] || f.set["for"]
	if f.all {
		for _, name := range []string{"size", "only", "results", "note"} {
			if f.set[name] {
				return fmt.Errorf("--%s is a sample's, not the whole enumeration's (--all, --limit, --for)", name)
			}
		}
	}
	if f.cfg.Limit < 0 || f.cfg.For < 0 {
		return errors.New("--limit and --for must not be negative")
	}
	if !f.set["doc"] {
		f.doc = sampleDoc
		if f.all {
			f.doc = ledgerDoc
		}
	}
	return nil
}

// usageErr is a command line that cannot be carried out.
type usageErr struct{ error }

// errBelowGoal is a finished run whose score is below the goal, or with a
// survivor not classified yet.
var errBelowGoal = errors.New("the goal is not met")

func exitCode(ctx context.Context, err error, stderr io.Writer) int {
	var u usageErr
	switch {
	case err == nil:
		return exitOK
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "mutation: interrupted; the verdicts so far are kept (--all: in the ledger, which the next run resumes; a sample: in the results file, which mutation report renders)")
		return exitInterrupted
	case errors.Is(err, errBelowGoal):
		return exitBelowGoal
	case errors.As(err, &u):
		fmt.Fprintf(stderr, "mutation: %v\n", err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "mutation: %v\n", err)
		return exitUsage
	}
}

func runMutants(ctx context.Context, f *flags, stdout, stderr io.Writer) error {
	cls, err := mutation.ReadClassifications(f.classes)
	if err != nil {
		return usageErr{err}
	}
	if f.cfg.Size < 1 {
		return usageErr{errors.New("--size must be at least 1")}
	}
	done, err := f.scratch(f.cfg.Results)
	if err != nil {
		return err
	}
	defer done()
	if len(f.cfg.Only) > 0 && !f.set["doc"] {
		f.doc = ""
	}
	rec, err := mutation.Run(ctx, f.cfg)
	if err != nil {
		return err
	}
	return concludeSample(rec, cls, f.doc, stdout, stderr)
}

// scratch makes the run's scratch directory, unless --work names one, and
// the folder of the file the run writes as it goes; done removes the
// scratch directory it made.
func (f *flags) scratch(file string) (done func(), err error) {
	done = func() {}
	if f.cfg.Work == "" {
		dir, err := os.MkdirTemp("", "mutation-")
		if err != nil {
			return nil, err
		}
		done = func() { _ = os.RemoveAll(dir) }
		f.cfg.Work = dir
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o750); err != nil {
		done()
		return nil, err
	}
	return done, nil
}

// runAll runs the whole enumeration, resumed from the ledger, and writes
// the report from the ledger, an interrupted run's too.
func runAll(ctx context.Context, f *flags, stdout, stderr io.Writer) error {
	cls, err := mutation.ReadClassifications(f.classes)
	if err != nil {
		return usageErr{err}
	}
	done, err := f.scratch(f.cfg.Ledger)
	if err != nil {
		return err
	}
	defer done()
	led, src, err := mutation.RunAll(ctx, f.cfg)
	if led == nil || src == nil {
		return err
	}
	cerr := concludeLedger(led, src, cls, f.doc, stdout, stderr)
	if err != nil {
		return err
	}
	return cerr
}

func reportAll(ctx context.Context, f flags, stdout, stderr io.Writer) error {
	cls, err := mutation.ReadClassifications(f.classes)
	if err != nil {
		return usageErr{err}
	}
	led, err := mutation.ReadLedger(f.cfg.Ledger)
	if err != nil {
		return usageErr{err}
	}
	src, err := mutation.ReadSource(ctx, f.cfg)
	if err != nil {
		return err
	}
	return concludeLedger(led, src, cls, f.doc, stdout, stderr)
}

// concludeLedger is conclude for the ledger's current verdicts, and says
// how many positions are left.
func concludeLedger(led *mutation.Ledger, src *mutation.Source, cls *mutation.Classifications, doc string, stdout, stderr io.Writer) error {
	current, stale, untried := led.Verdicts(src)
	results := make([]mutation.Result, len(current))
	for i, e := range current {
		results[i] = e.Result
	}
	fmt.Fprintf(stdout, "mutation: %d of %d positions with a current verdict; %d left (%d never tried, %d to try again)\n",
		len(current), len(src.Mutants), len(stale)+len(untried), len(untried), len(stale))
	return conclude(results, cls, doc, func(w io.Writer) error { return mutation.WriteLedgerReport(w, led, src, cls) }, stdout, stderr)
}

// concludeSample is conclude for a sample's results.
func concludeSample(rec *mutation.Record, cls *mutation.Classifications, doc string, stdout, stderr io.Writer) error {
	return conclude(rec.Results, cls, doc, func(w io.Writer) error { return mutation.WriteReport(w, rec, cls) }, stdout, stderr)
}

func report(f flags, stdout, stderr io.Writer) error {
	cls, err := mutation.ReadClassifications(f.classes)
	if err != nil {
		return usageErr{err}
	}
	rec, err := mutation.ReadRecord(f.cfg.Results)
	if err != nil {
		return usageErr{err}
	}
	if f.cfg.Note != "" {
		rec.Header.Note = f.cfg.Note
	}
	return concludeSample(rec, cls, f.doc, stdout, stderr)
}

// conclude writes the report with write (unless doc is empty), prints the
// score of results and the survivors not classified yet, and says whether
// the goal is met.
func conclude(results []mutation.Result, cls *mutation.Classifications, doc string, write func(io.Writer) error, stdout, stderr io.Writer) error {
	if doc != "" {
		if err := os.MkdirAll(filepath.Dir(doc), 0o750); err != nil {
			return err
		}
		if err := atomicfile.Write(doc, write); err != nil {
			return err
		}
	}
	t := mutation.Count(results, cls)
	fmt.Fprintf(stdout, "mutation: %d viable, %d killed, %d survived (%d not classified); score %.1f %% of %d judged (goal %.0f %%)\n",
		t.Viable, t.Killed, t.Survived, t.Unclassified, t.Score()*100, t.Judged(), mutation.Goal*100)
	if doc != "" {
		fmt.Fprintf(stdout, "mutation: wrote %s\n", doc)
	}
	for _, r := range results {
		if _, ok := cls.Find(r.Key); r.Status == mutation.Survived && !ok {
			fmt.Fprintf(stdout, "  survived, not classified: %s\n", r.Mutant)
		}
	}
	if t.Unclassified > 0 || t.Score() < mutation.Goal {
		fmt.Fprintln(stderr, "mutation: the goal is not met: classify every survivor, and add the checks the run misses")
		return errBelowGoal
	}
	return nil
}

func list(cfg mutation.Config, stdout io.Writer) error {
	ms, err := mutants(cfg.Root)
	if err != nil {
		return err
	}
	for _, m := range mutation.Order(ms, cfg.Seed) {
		fmt.Fprintln(stdout, m)
	}
	return nil
}

func mutants(root string) ([]mutation.Mutant, error) {
	_, ms, err := mutation.EnumerateSources(root)
	return ms, err
}

// find is the mutant of id in today's source.
func find(root string, pos []string) (mutation.Mutant, error) {
	if len(pos) != 1 {
		return mutation.Mutant{}, usageErr{errors.New("name one mutant id (mutation list shows them)")}
	}
	ms, err := mutants(root)
	if err != nil {
		return mutation.Mutant{}, err
	}
	for _, m := range ms {
		if m.ID() == pos[0] {
			return m, nil
		}
	}
	return mutation.Mutant{}, usageErr{fmt.Errorf("no mutant %s in today's source", pos[0])}
}

func show(cfg mutation.Config, pos []string, stdout io.Writer) error {
	m, err := find(cfg.Root, pos)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(m.File)
	if err != nil {
		return err
	}
	before, after := m.Lines(src)
	fmt.Fprintf(stdout, "%s\n--- %s:%d\n-%s\n+%s\n", m, m.File, m.Line, before, after)
	return nil
}

func serve(ctx context.Context, f flags, pos []string, stdout io.Writer) error {
	m, err := find(f.cfg.Root, pos)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mutation-serve-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	b := &mutation.Builder{Root: f.cfg.Root, Work: dir, Go: f.cfg.Go, Package: "./cmd/reference"}
	bin, err := b.Build(ctx, &m)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "serving mutant %s\n", m)
	cmd := exec.CommandContext(ctx, bin, append([]string{"--addr", f.addr}, f.serverArgs...)...) //nolint:gosec // our own build
	cmd.Stdout, cmd.Stderr = stdout, stdout
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	if err := cmd.Run(); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
