// Command reference serves the reference server of the Partner Commerce API
// v2 on 127.0.0.1:8080, with the embedded data set or --seed. The state
// (accounts, wallets, transactions) is kept in memory and lost when the
// process stops, unless --state DIR keeps it in a journal there. --fault
// switches on deliberate departures from the API document (--list-faults
// names them), to rehearse a failing run. --tls-cert and --tls-key serve
// HTTPS, and --client-ca requires client certificates (mutual TLS).
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/partnercommerce/conformance/internal/version"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "reference:", err)
		os.Exit(exitCode(err))
	}
}

// usageError is a command line that cannot be served.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// exitCode is the exit code of run's error: 2 for a usage error, else 1.
func exitCode(err error) int {
	var usage usageError
	if errors.As(err, &usage) {
		return 2
	}
	return 1
}

// run parses the flags, serves until ctx is done, then shuts down
// gracefully. It prints "listening on http://ADDR" to stdout once the
// listener is bound. Environment variables REFERENCE_ADDR and
// REFERENCE_LOG_LEVEL give defaults to --addr and --log-level.
// config is what the command line asks for.
type config struct {
	addr, seed, level, stateDir string
	settle, expire              time.Duration
	maxConns                    int
	showVersion                 bool
	walletWhenPaid              bool
	faults                      []reference.Fault
	listFaults                  bool
	rateLimit                   int // requests a second per secret key; 0: none
	repair                      bool
	tlsCert, tlsKey, clientCA   string // HTTPS, and mutual TLS with clientCA
	metricsAddr                 string // --metrics-addr (metrics.go); "": no metrics
	pprofAddr                   string // --pprof-addr (pprof.go); "": no profiles
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if cfg.showVersion {
		_, err := io.WriteString(stdout, version.String("reference"))
		return err
	}
	if cfg.listFaults {
		return listFaults(stdout)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(cfg.level)); err != nil {
		return usageError{fmt.Errorf("--log-level: %w", err)}
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	tlsConfig, err := serverTLS(cfg)
	if err != nil {
		return err
	}

	ds, err := loadDataset(cfg.seed)
	if err != nil {
		return err
	}
	opts := []reference.Option{reference.WithSettleAfter(cfg.settle), reference.WithExpireAfter(cfg.expire)}
	if cfg.stateDir != "" {
		opts = append(opts, reference.WithState(cfg.stateDir), reference.WithLogger(logger))
	}
	if cfg.repair {
		opts = append(opts, reference.WithRepair())
	}
	if len(cfg.faults) > 0 {
		opts = append(opts, reference.WithFaults(cfg.faults...))
		logger.Warn("faults switched on: this server departs from the API document on purpose", "faults", cfg.faults)
	}
	if cfg.walletWhenPaid {
		opts = append(opts, reference.WithWalletTakenWhenPaid())
	}
	metrics, err := startMetrics(ctx, cfg.metricsAddr, logger, stdout)
	if err != nil {
		return err
	}
	defer func() { _ = metrics.close() }() // after the API server: a last scrape may still come
	opts = append(opts, metrics.options()...)
	profiles, err := startPprof(ctx, cfg.pprofAddr, logger, stdout)
	if err != nil {
		return err
	}
	defer func() { _ = closeSide(profiles) }()
	store, err := reference.NewStore(ds, opts...)
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.addr)
	if err != nil {
		return err
	}
	ln = httpapi.LimitListener(ln, cfg.maxConns)
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	logger.Info("listening", "addr", ln.Addr().String(), "scheme", scheme, "state", stateOrMemory(cfg.stateDir))
	fmt.Fprintf(stdout, "listening on %s://%s\n", scheme, ln.Addr())
	srv := httpapi.NewHTTPServer(logger, store)
	srv.TLSConfig = tlsConfig
	srv.Handler = httpapi.RateLimit(srv.Handler, cfg.rateLimit)
	srv.Handler = metrics.count(srv.Handler)
	return serve(ctx, logger, srv, ln)
}

// parseFlags reads the command line; flag.ErrHelp when help was asked for.
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("reference", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.addr, "addr", envOr(getenv, "REFERENCE_ADDR", "127.0.0.1:8080"), "address to listen on")
	fs.StringVar(&cfg.seed, "seed", "", "data set YAML file (default: the embedded reference/dataset/default.yaml)")
	fs.DurationVar(&cfg.settle, "settle-after", reference.DefaultSettleAfter, "time after which a paid transaction settles")
	fs.DurationVar(&cfg.expire, "expire-after", reference.DefaultExpireAfter, "time after which an unpaid payment expires")
	fs.StringVar(&cfg.level, "log-level", envOr(getenv, "REFERENCE_LOG_LEVEL", "info"), "log level: debug, info, warn, error")
	fs.StringVar(&cfg.stateDir, "state", "", "directory whose journal keeps the state across restarts and crashes (created 0700; default: memory only)")
	fs.BoolVar(&cfg.repair, "repair", false, "with --state: start over a damaged journal, keeping a copy of it, dropping the damaged frame and everything after it, and logging every payment dropped")
	fs.IntVar(&cfg.maxConns, "max-conns", httpapi.DefaultMaxConns, "maximum concurrent connections; further clients wait")
	fs.BoolVar(&cfg.walletWhenPaid, "wallet-when-paid", false, "a payment with a gateway remainder takes its balance and coins only when the gateway part is paid (never: the reference has no gateway); docs/reference-choices.md")
	fs.IntVar(&cfg.rateLimit, "rate-limit", 0, "requests a second each secret key may send (0: no limit); past it, 429 with Retry-After, as a gateway in front of a real server answers")
	fs.StringVar(&cfg.tlsCert, "tls-cert", "", "serve HTTPS with this PEM certificate (needs --tls-key); TLS 1.2 and later")
	fs.StringVar(&cfg.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
	fs.StringVar(&cfg.clientCA, "client-ca", "", "with --tls-cert: require of every client a certificate signed by a CA of this PEM file (mutual TLS)")
	fs.StringVar(&cfg.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on http://ADDR/metrics: requests by operation and status code, and with --state the journal's commits (fdatasync latency, group size); off unless given")
	fs.StringVar(&cfg.pprofAddr, "pprof-addr", "", "serve the Go runtime's profiles (net/http/pprof) on http://ADDR/debug/pprof/, to profile the server under load (docs/performance.md); off unless given")
	fs.BoolVar(&cfg.showVersion, "version", false, "print the suite version, spec SHA-256, commit and Go version, and exit")
	var faults []string
	fs.Func("fault", "switch on deliberate departures from the API document, NAME[,NAME] (see --list-faults), to rehearse a failing run", func(list string) error {
		faults = append(faults, list)
		return nil
	})
	fs.BoolVar(&cfg.listFaults, "list-faults", false, "list the faults --fault can switch on, one line each, and exit")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: reference [flags]\n\n"+
			"Serves the Partner Commerce API v2 reference. All state (accounts, wallets,\n"+
			"transactions) is kept in memory only and is lost when the server stops or\n"+
			"restarts, and every start begins from the data set, unless --state DIR is\n"+
			"given: then every change is fsynced to DIR's journal before it is answered,\n"+
			"and a restart over DIR (with the same data set and transition times)\n"+
			"serves the state it had acknowledged.\n\nEnvironment: REFERENCE_ADDR (default of --addr), REFERENCE_LOG_LEVEL (default of --log-level).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, usageError{err}
	}
	if fs.NArg() > 0 {
		return cfg, usageError{fmt.Errorf("unexpected arguments: %v", fs.Args())}
	}
	var err error
	if cfg.faults, err = reference.ParseFaults(strings.Join(faults, ",")); err != nil {
		return cfg, usageError{fmt.Errorf("--fault: %w (reference --list-faults says what each does)", err)}
	}
	if cfg.rateLimit < 0 {
		return cfg, usageError{fmt.Errorf("--rate-limit %d: want a number of requests a second, or 0 for no limit", cfg.rateLimit)}
	}
	if cfg.repair && cfg.stateDir == "" {
		return cfg, usageError{errors.New("--repair repairs the journal of --state DIR: give both")}
	}
	if (cfg.tlsCert == "") != (cfg.tlsKey == "") || (cfg.clientCA != "" && cfg.tlsCert == "") {
		return cfg, usageError{errors.New("--tls-cert and --tls-key go together, and --client-ca needs them")}
	}
	return cfg, nil
}

// serverTLS is the TLS configuration cfg asks for; nil for plain HTTP.
func serverTLS(cfg config) (*tls.Config, error) {
	if cfg.tlsCert == "" {
		return nil, nil
	}
	c, err := httpapi.ServerTLS(cfg.tlsCert, cfg.tlsKey, cfg.clientCA)
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// listFaults prints each fault --fault can switch on, by name, with its one line.
func listFaults(stdout io.Writer) error {
	faults := reference.AllFaults()
	slices.Sort(faults)
	width := 0
	for _, f := range faults {
		width = max(width, len(f))
	}
	var b strings.Builder
	for _, f := range faults {
		fmt.Fprintf(&b, "%-*s  %s\n", width, f, f.Describe())
	}
	_, err := io.WriteString(stdout, b.String())
	return err
}

// serve answers on ln until ctx ends, then shuts down within 10 s.
func serve(ctx context.Context, logger *slog.Logger, srv *http.Server, ln net.Listener) error {
	serveErr := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			serveErr <- srv.ServeTLS(ln, "", "") // HTTP/2 as well, as net/http offers it
			return
		}
		serveErr <- srv.Serve(ln)
	}()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	logger.Info("shutting down")
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func loadDataset(path string) (*reference.Dataset, error) {
	if path == "" {
		return reference.DefaultDataset()
	}
	return reference.LoadDataset(path)
}

func stateOrMemory(dir string) string {
	if dir == "" {
		return "memory only"
	}
	return dir
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}
