// Command perf measures, on loopback and in bounded time, what the table
// of docs/performance.md reports: payment creation on the reference server against a
// static-JSON net/http handler and, with --state, against itself in
// memory (with the journal's bytes per payment), the reference's memory and payment rate as
// payments accumulate to a million, and the load tester against the vegeta
// CLI. It prints ratios taken in alternating rounds of one run, with the
// load average, as a Markdown table (docs/performance.md).
//
//	perf [flags]                  run the measurements (make perf)
//	perf serve static|target      serve a baseline on 127.0.0.1 (run by perf itself)
//
// Exit status: 0 when the measurements ran (met goals or not), 2 when they
// could not be carried out, 130 when interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/partnercommerce/conformance/internal/version"
	"github.com/partnercommerce/conformance/perf"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	interrupted := ctx.Err() != nil
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case interrupted:
		fmt.Fprintln(os.Stderr, "perf: interrupted")
		os.Exit(130)
	default:
		fmt.Fprintln(os.Stderr, "perf:", err)
		os.Exit(2)
	}
}

// perfFlags are the flags of the measurements.
type perfFlags struct {
	refBin, only, clientName, stored, loadtestBin, vegetaBin, genRates *string
	durableConns                                                       *string
	conns, threads, rounds, storedWindows, fill                        *int
	genRounds, genWorkers, memRounds                                   *int
	window, warmup, floorWindow, storedWindow, genDuration, memShort   *time.Duration
	memLong                                                            *time.Duration
	soakDuration, soakEvery                                            *time.Duration
	genRef, memRate, soakRate                                          *float64
	showVersion                                                        *bool
}

// perfFlagSet defines the flags of the measurements.
func perfFlagSet(stderr io.Writer) (*flag.FlagSet, *perfFlags) {
	fs := flag.NewFlagSet("perf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &perfFlags{
		refBin:        fs.String("reference", "bin/reference", "the reference server binary to measure (make perf builds it)"),
		only:          fs.String("only", "ratio,durable,stored,generators,memory", "measurements to run, comma-separated: ratio, durable, stored, generators, memory, soak (soak is long: make soak)"),
		clientName:    fs.String("client", "auto", "client of the server measurements: wrk, go, or auto (wrk when installed)"),
		conns:         fs.Int("connections", 32, "connections of the client"),
		threads:       fs.Int("threads", 1, "wrk threads"),
		durableConns:  fs.String("durable-connections", "16,128", "connections of the client in the durable ratio (both sides), comma-separated, one ratio each: with --state a payment waits for an fdatasync, so its rate is at most the connections over that latency"),
		rounds:        fs.Int("rounds", 7, "alternating rounds of the server ratio and of the durable rows; each row reports their median and spread"),
		window:        fs.Duration("window", 5*time.Second, "measured time per server per round"),
		warmup:        fs.Duration("warmup", time.Second, "time sent to each fresh server before its window"),
		floorWindow:   fs.Duration("floor-window", time.Second, "the durable rows' fdatasync floor: how long each round's loop of writes and fdatasyncs runs, in the state's directory, after the durable side stopped"),
		stored:        fs.String("stored", "0,250000,500000,1000000", "checkpoints (stored payments) of the memory and rate measurement; the windows at one checkpoint store payments too (about 180k at 0 on a 2-core machine), so keep the gaps larger"),
		storedWindow:  fs.Duration("stored-window", time.Second, "measured time of each window at a checkpoint"),
		storedWindows: fs.Int("stored-windows", 5, "windows at each checkpoint; their median is the checkpoint's rate"),
		fill:          fs.Int("fill", 32, "connections of the Go client that fills the store between checkpoints"),
		loadtestBin:   fs.String("loadtest", "bin/loadtest", "the load tester binary compared with the vegeta CLI (make perf builds it)"),
		vegetaBin:     fs.String("vegeta", perf.FindVegeta(), "the vegeta CLI (\"\": not installed, the load tester is measured alone)"),
		genRates:      fs.String("gen-rates", "2500,5000,7500,10000", "open-model rates (requests per second) of the generator comparison"),
		genRef:        fs.Float64("gen-reference", 5000, "the rate whose p99 and late sends the generator comparison reports"),
		genDuration:   fs.Duration("gen-duration", 5*time.Second, "duration of each generator run"),
		genRounds:     fs.Int("gen-rounds", 3, "alternating rounds of the generator comparison"),
		genWorkers:    fs.Int("gen-workers", 64, "worker cap of the generators' max-rate runs"),
		memRate:       fs.Float64("mem-rate", 5000, "rate (requests per second) of the generators' memory runs"),
		memShort:      fs.Duration("mem-short", 5*time.Second, "the short memory run"),
		memLong:       fs.Duration("mem-long", 20*time.Second, "the long memory run"),
		memRounds:     fs.Int("mem-rounds", 2, "alternating rounds of the memory runs"),
		soakRate:      fs.Float64("soak-rate", 5000, "rate (requests per second) of the soak run"),
		soakDuration:  fs.Duration("soak-duration", 10*time.Minute, "duration of the soak run, whose memory slope is extrapolated to an hour"),
		soakEvery:     fs.Duration("soak-every", 5*time.Second, "how often the soak run's resident memory is read"),
		showVersion:   fs.Bool("version", false, "print the suite version, spec SHA-256, commit and Go version, and exit"),
	}
	fs.Usage = func() { usage(fs) }
	return fs, f
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "serve" {
		return serve(ctx, args[1:], stdout, stderr)
	}
	fs, f := perfFlagSet(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *f.showVersion {
		_, err := io.WriteString(stdout, version.String("perf"))
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	what, checkpoints, err := f.check()
	if err != nil {
		return err
	}
	client, err := pickClient(*f.clientName, *f.threads, *f.conns)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	log := func(format string, args ...any) { fmt.Fprintf(stderr, "perf: "+format+"\n", args...) }
	rep := perf.Report{Client: client.Name(), LoadBefore: perf.LoadAverage()}
	if err := f.measureServers(ctx, &rep, what, checkpoints, client, self, log); err != nil {
		return err
	}
	if err := f.measureGenerators(ctx, &rep, what, self, log); err != nil {
		return err
	}
	rep.LoadAfter = perf.LoadAverage()
	rep.WriteMarkdown(stdout)
	return nil
}

// check parses --only and --stored and checks the other flags.
func (f *perfFlags) check() (what map[string]bool, checkpoints []int, err error) {
	if what, err = parseOnly(*f.only); err != nil {
		return nil, nil, err
	}
	if checkpoints, err = parseCheckpoints(*f.stored); err != nil {
		return nil, nil, err
	}
	if *f.rounds < 1 || *f.window < time.Second || *f.conns < 1 || *f.threads < 1 || *f.fill < 1 || *f.storedWindows < 1 {
		return nil, nil, errors.New("--rounds, --connections, --threads, --fill and --stored-windows must be at least 1, --window at least 1s")
	}
	if *f.floorWindow < 10*time.Millisecond {
		return nil, nil, errors.New("--floor-window must be at least 10ms")
	}
	if _, err := parseConnections(*f.durableConns); err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(*f.refBin); err != nil && (what["ratio"] || what["durable"] || what["stored"]) {
		return nil, nil, fmt.Errorf("--reference: %w (make perf builds bin/reference)", err)
	}
	return what, checkpoints, nil
}

// measureServers runs the server measurements of what into rep.
func (f *perfFlags) measureServers(ctx context.Context, rep *perf.Report, what map[string]bool, checkpoints []int,
	client perf.Client, self string, log func(string, ...any),
) error {
	ref, static := launchers(*f.refBin, self)
	if what["ratio"] {
		res, err := perf.ServerRatio(ctx, perf.RatioConfig{Client: client, Static: static, Reference: ref,
			Rounds: *f.rounds, Window: *f.window, Warmup: *f.warmup, Log: log})
		if err != nil {
			return fmt.Errorf("server ratio: %w", err)
		}
		rep.Ratio = &res
	}
	if what["durable"] {
		conns, _ := parseConnections(*f.durableConns) // checked by check
		for _, n := range conns {
			cfg := perf.DurableConfig{Connections: n, Reference: ref, Rounds: *f.rounds, Window: *f.window, Warmup: *f.warmup,
				FloorWindow: *f.floorWindow, Log: log}
			res, err := durable(ctx, cfg, *f.clientName, *f.threads)
			if err != nil {
				return err
			}
			rep.Durable = append(rep.Durable, *res)
		}
	}
	if what["stored"] {
		res, err := perf.Stored(ctx, perf.StoredConfig{Reference: ref, Client: client, Fill: *f.fill,
			Checkpoints: checkpoints, Window: *f.storedWindow, Windows: *f.storedWindows, Log: log})
		if err != nil {
			return fmt.Errorf("stored payments: %w", err)
		}
		rep.Stored = &res
	}
	return nil
}

// measureGenerators runs the load generators' measurements of what into
// rep.
func (f *perfFlags) measureGenerators(ctx context.Context, rep *perf.Report, what map[string]bool, self string, log func(string, ...any)) error {
	if what["generators"] {
		res, err := generators(ctx, self, *f.loadtestBin, *f.vegetaBin, *f.genRates, *f.genRef, *f.genDuration, *f.genRounds, *f.genWorkers, log)
		if err != nil {
			return fmt.Errorf("generators: %w", err)
		}
		rep.Generators = &res
	}
	if what["memory"] || what["soak"] {
		res, err := memory(ctx, self, *f.loadtestBin, *f.vegetaBin, what, *f.memRate, *f.memShort, *f.memLong, *f.memRounds,
			perf.SoakConfig{Rate: *f.soakRate, Duration: *f.soakDuration, Every: *f.soakEvery}, log)
		if err != nil {
			return fmt.Errorf("memory: %w", err)
		}
		rep.Memory = &res
	}
	return nil
}

func usage(fs *flag.FlagSet) {
	fmt.Fprintf(fs.Output(), "usage: perf [flags]\n\n"+
		"Measures the reference server against a static-JSON net/http handler, and its memory\n"+
		"and payment rate as payments accumulate, on 127.0.0.1, in bounded time; prints the\n"+
		"ratios as a Markdown table. Servers run as child processes.\n\n")
	fs.PrintDefaults()
}

// durable measures the durable ratio with its own client of
// cfg.Connections connections.
func durable(ctx context.Context, cfg perf.DurableConfig, clientName string, threads int) (*perf.DurableResult, error) {
	client, err := pickClient(clientName, threads, cfg.Connections)
	if err != nil {
		return nil, err
	}
	cfg.Client = client
	res, err := perf.Durable(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("durable ratio: %w", err)
	}
	return &res, nil
}

// launchers start the servers measured: the reference binary, and this
// program (self) serving the static handler.
func launchers(refBin, self string) (ref, static perf.Launcher) {
	ref = perf.Launcher{Name: "reference", Argv: []string{refBin, "--addr", "127.0.0.1:0", "--log-level", "warn"}}
	static = perf.Launcher{Name: "static handler", Argv: []string{self, "serve", "static"}}
	return ref, static
}

func parseOnly(s string) (map[string]bool, error) {
	out := map[string]bool{}
	for f := range strings.SplitSeq(s, ",") {
		switch f = strings.TrimSpace(f); f {
		case "ratio", "durable", "stored", "generators", "memory", "soak":
			out[f] = true
		default:
			return nil, fmt.Errorf("--only: unknown measurement %q (ratio, durable, stored, generators, memory, soak)", f)
		}
	}
	return out, nil
}

// parseConnections reads --durable-connections: counts of at least 1.
func parseConnections(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--durable-connections: %q is not a list of connection counts", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseCheckpoints(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || (len(out) > 0 && n <= out[len(out)-1]) {
			return nil, fmt.Errorf("--stored: %q is not a list of ascending counts", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func pickClient(name string, threads, conns int) (perf.Client, error) {
	switch name {
	case "wrk", "auto":
		if w, ok := perf.FindWrk(threads, conns); ok {
			return w, nil
		}
		if name == "wrk" {
			return nil, errors.New("--client wrk: wrk is not on PATH (apt-get install wrk)")
		}
		fallthrough
	case "go":
		return &perf.GoClient{Connections: conns, Prefix: "perf-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-"}, nil
	}
	return nil, fmt.Errorf("--client: %q is not wrk, go or auto", name)
}

// serve runs a baseline server for the measurements, on a free loopback
// port unless --addr says otherwise, printing "listening on http://ADDR".
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("perf serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	if len(args) == 0 {
		return errors.New("usage: perf serve static|target [--addr ADDR]")
	}
	kind := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	var h http.Handler
	var err error
	switch kind {
	case "static":
		h, err = perf.StaticHandler()
	case "target":
		h, err = perf.TargetHandler()
	default:
		return fmt.Errorf("perf serve: %q is not static or target", kind)
	}
	if err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shut)
}

// generators compares the load tester with the vegeta CLI against the
// cheap target (perf serve target).
func generators(ctx context.Context, self, loadtestBin, vegetaBin, rates string, ref float64, d time.Duration,
	rounds, workers int, log func(string, ...any)) (perf.GeneratorResult, error) {
	if _, err := os.Stat(loadtestBin); err != nil {
		return perf.GeneratorResult{}, fmt.Errorf("--loadtest: %w (make perf builds bin/loadtest)", err)
	}
	var rs []float64
	for f := range strings.SplitSeq(rates, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || r <= 0 {
			return perf.GeneratorResult{}, fmt.Errorf("--gen-rates: %q is not a list of rates above 0", rates)
		}
		rs = append(rs, r)
	}
	dir, err := os.MkdirTemp("", "perf-generators-")
	if err != nil {
		return perf.GeneratorResult{}, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	return perf.Generators(ctx, perf.GeneratorConfig{
		Target: perf.Launcher{Name: "target", Argv: []string{self, "serve", "target"}}, Loadtest: loadtestBin, Vegeta: vegetaBin,
		Rates: rs, Reference: ref, Workers: workers, Duration: d, Rounds: rounds, Dir: dir, Log: log})
}

// memory measures the generators' memory growth from a short run to a long
// one (what["memory"]) and the load tester's soak slope (what["soak"]).
func memory(ctx context.Context, self, loadtestBin, vegetaBin string, what map[string]bool, rate float64, short, long time.Duration,
	rounds int, soak perf.SoakConfig, log func(string, ...any)) (perf.MemoryResult, error) {
	if _, err := os.Stat(loadtestBin); err != nil {
		return perf.MemoryResult{}, fmt.Errorf("--loadtest: %w (make perf builds bin/loadtest)", err)
	}
	dir, err := os.MkdirTemp("", "perf-memory-")
	if err != nil {
		return perf.MemoryResult{}, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	target := perf.Launcher{Name: "target", Argv: []string{self, "serve", "target"}}
	var res perf.MemoryResult
	if what["memory"] {
		if res, err = perf.Memory(ctx, perf.MemoryConfig{Target: target, Loadtest: loadtestBin, Vegeta: vegetaBin,
			Rate: rate, Short: short, Long: long, Rounds: rounds, Dir: dir, Log: log}); err != nil {
			return res, err
		}
	}
	if what["soak"] {
		soak.Target, soak.Loadtest, soak.Dir, soak.Log = target, loadtestBin, dir, log
		s, err := perf.Soak(ctx, soak)
		if err != nil {
			return res, fmt.Errorf("soak: %w", err)
		}
		res.Soak = &s
	}
	return res, nil
}
