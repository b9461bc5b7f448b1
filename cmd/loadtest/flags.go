package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"
)

// runFlags are the flags of a load test: the run's settings, and the
// command's own (the target, the output, the judging).
type runFlags struct {
	settings                                        record.Settings
	loadFlags                                       []string // the flags of the settings' load
	profilePath, target, loadFile, outDir, logLevel string
	referenceFaults                                 string // of the embedded reference, NAME[,NAME]
	junit                                           string
	quiet, strict                                   bool
	historyTimeout                                  time.Duration
	ths                                             *[]report.Threshold
}

// runFlagSet defines the flags of a load test, those of the settings
// writing into s (settingFlags).
func runFlagSet(getenv func(string) string, stderr io.Writer, s record.Settings) (*flag.FlagSet, *runFlags) {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &runFlags{settings: s}
	settingFlags(fs, reflect.ValueOf(&f.settings).Elem())
	f.loadFlags = settingFlags(fs, reflect.ValueOf(&f.settings.Load).Elem())
	f.settings.Conn.Register(fs)
	fs.StringVar(&f.profilePath, "profile", getenv("LOADTEST_PROFILE"), "target profile YAML (default: the embedded reference's profile)")
	fs.StringVar(&f.target, "target", getenv("LOADTEST_TARGET"), "base URL of the server; none starts the embedded reference on a free loopback port")
	fs.StringVar(&f.referenceFaults, "reference-fault", "", "without --target: switch these faults on in the embedded reference, NAME[,NAME] (reference --list-faults), to rehearse a failing run")
	fs.StringVar(&f.loadFile, "load-profile", "", "load profile YAML: pacing, rate, duration, ... or several stages run one after the other (profiles/load/stages.yaml), and any other setting by its key (timeout, max_workers, nemesis, ...); flags given explicitly override it, but for the load of a file in stages")
	fs.StringVar(&f.outDir, "out", getenv("LOADTEST_OUT"), "output directory (default reports/load/<run-id>[/shard-i-of-n])")
	fs.BoolVar(&f.quiet, "quiet", false, "no live progress line")
	fs.StringVar(&f.junit, "junit", "", junitUsage)
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level of set-up events: debug, info, warn, error")
	fs.DurationVar(&f.historyTimeout, "history-timeout", verdict.DefaultHistoryTimeout, "bound on the history check; what it has not decided by then fails")
	fs.BoolVar(&f.strict, "strict", false, strictUsage)
	f.ths = thresholdFlags(fs)
	fs.Usage = groupedUsage(fs, stderr, runHelpIntro, runGroups, runHelpExamples)
	return fs, f
}

// settingFlags defines a flag for each field of v (record.Settings, or
// its pacing.LoadProfile) that has a flag tag, with its help, writing into
// the field, and returns their names. A float is a rate, which also reads
// vegeta's 100/1s.
func settingFlags(fs *flag.FlagSet, v reflect.Value) (names []string) {
	for i := range v.NumField() {
		field, value := v.Type().Field(i), v.Field(i)
		name, help := field.Tag.Get("flag"), field.Tag.Get("help")
		if name == "" {
			continue // not a flag: the load (its own flags), a load's stages
		}
		switch p := value.Addr().Interface().(type) {
		case flag.Value:
			fs.Var(p, name, help)
		case *string:
			fs.StringVar(p, name, *p, help)
		case *int:
			fs.IntVar(p, name, *p, help)
		case *bool:
			fs.BoolVar(p, name, *p, help)
		case *time.Duration:
			fs.DurationVar(p, name, *p, help)
		case *float64:
			fs.Var((*rate)(p), name, help)
		default:
			panic(fmt.Sprintf("setting %s: no flag for a %s", field.Name, field.Type))
		}
		names = append(names, name)
	}
	return names
}

// thresholdFlags registers the k6-style threshold flags on fs.
func thresholdFlags(fs *flag.FlagSet) *[]report.Threshold {
	var ths []report.Threshold
	add := func(name, usage string, build func(string) (report.Threshold, error)) {
		fs.Func(name, usage, func(v string) error {
			th, err := build(v)
			if err != nil {
				return err
			}
			ths = append(ths, th)
			return nil
		})
	}
	for _, m := range []string{"p50", "p90", "p95", "p99", "p999", "max", "mean"} {
		add("max-"+m, "fail when the corrected "+m+" latency exceeds this duration (e.g. 50ms)",
			func(v string) (report.Threshold, error) { return report.MaxThreshold(m, v) })
		add("max-raw-"+m, "fail when the raw "+m+" latency exceeds this duration",
			func(v string) (report.Threshold, error) { return report.MaxThreshold("raw_"+m, v) })
	}
	add("min-success", "fail when fewer than this percentage of requests got an answer the document allows: the expected one or a documented refusal such as 422 for an empty wallet; 5xx and unanswered requests count against it (e.g. 99.9)",
		func(v string) (report.Threshold, error) { return report.MinThreshold("allowed", v) })
	add("min-expected", "fail when fewer than this percentage of requests got the answer the scenario expects (a created payment, 200 for reads)",
		func(v string) (report.Threshold, error) { return report.MinThreshold("success", v) })
	add("max-server-errors", fmt.Sprintf("fail when more than this percentage of requests got a 5xx or no readable answer (default %g, or --max-uncertain when higher: the requests without an answer are server errors too; a gateway's page is not the API's)", report.DefaultMaxServerErrorsPct),
		func(v string) (report.Threshold, error) { return report.MaxThreshold("server_errors", v) })
	add("max-errors", "fail when more requests than this got an unexpected answer",
		func(v string) (report.Threshold, error) { return report.MaxThreshold("errors", v) })
	add("max-duplicate-debits", "fail when more ids than this were created more than once (counted per extra creation)",
		func(v string) (report.Threshold, error) { return report.MaxThreshold("duplicate_debits", v) })
	add("max-uncertain", fmt.Sprintf("fail when more than this percentage of requests got no answer within --timeout: the server did not answer (default %g)", report.DefaultMaxUncertainPct),
		func(v string) (report.Threshold, error) { return report.MaxThreshold("uncertain_pct", v) })
	add("max-throttled-pct", "fail when more than this percentage of requests were throttled (429, or 503 with Retry-After); by default a throttled run passes and says the offered rate was above the target's limit",
		func(v string) (report.Threshold, error) { return report.MaxThreshold("throttled_pct", v) })
	add("max-late-sends", "fail when more than this percentage of sends were late",
		func(v string) (report.Threshold, error) { return report.MaxThreshold("late_sends", v) })
	add("min-achieved-rate", "fail when the generator sent less than this percentage of the scheduled requests",
		func(v string) (report.Threshold, error) { return report.MinThreshold("achieved_rate", v) })
	add("threshold", "a threshold expression, repeatable: metric<=value or metric>=value; metrics: "+strings.Join(report.ThresholdMetrics(), " "),
		report.ParseThreshold)
	return &ths
}

// rate is a flag value in requests per second that also reads vegeta's
// frequency/duration syntax (100/1s).
type rate float64

func (r *rate) String() string { return strconv.FormatFloat(float64(*r), 'g', -1, 64) }

func (r *rate) Set(s string) error {
	v, err := pacing.ParseRate(s)
	if err != nil {
		return err
	}
	*r = rate(v)
	return nil
}
