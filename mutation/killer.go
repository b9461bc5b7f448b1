package mutation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Killer is a command that judges a server: it kills a mutant when it
// exits non-zero against it (a failure, an INCOMPLETE or STOPPED run, a
// target it could not test), or runs past the bound. {target} in the
// command is the mutant's URL, {reports} a fresh directory for its
// reports, from which the killing judge or scenario is read.
type Killer struct {
	Name    string
	Command []string
}

// DefaultKiller is the conformance run with the reference's profile.
const DefaultKiller = "conformance=bin/conformance --target {target} --profile profiles/reference.yaml --report-dir {reports}"

// ParseKiller reads "NAME=COMMAND ARGS..." (or a command alone, named after
// its first word). The command is split at white space, not by a shell,
// and must aim at {target}.
func ParseKiller(s string) (Killer, error) {
	name, command, named := strings.Cut(s, "=")
	if !named || strings.ContainsAny(name, " \t") {
		name, command = "", s
	}
	k := Killer{Name: name, Command: strings.Fields(command)}
	if len(k.Command) == 0 {
		return Killer{}, fmt.Errorf("killer %q: no command", s)
	}
	if k.Name == "" {
		k.Name = filepath.Base(k.Command[0])
	}
	if !strings.Contains(command, "{target}") {
		return Killer{}, fmt.Errorf("killer %q: the command must aim at {target}, the mutant's URL", s)
	}
	return k, nil
}

// String is the killer as ParseKiller reads it.
func (k Killer) String() string { return k.Name + "=" + strings.Join(k.Command, " ") }

// Outcome is what one killer command did against one server.
type Outcome struct {
	Exit     int      `json:"exit"`
	TimedOut bool     `json:"timed_out,omitempty"`
	Seconds  float64  `json:"seconds"`
	Failures []string `json:"failures,omitempty"` // failed scenarios and properties, as the reports name them
	Warnings []string `json:"warnings,omitempty"` // readings the target did not follow (a warning, not a kill)
	Said     []string `json:"said,omitempty"`     // the command's last lines
}

// Killed reports whether the outcome kills the mutant.
func (o Outcome) Killed() bool { return o.Exit != 0 || o.TimedOut }

// run runs the killer against target from dir, bounded by bound, with its
// reports in reports.
func (k Killer) run(ctx context.Context, dir, target, reports string, bound time.Duration) (Outcome, error) {
	if err := os.RemoveAll(reports); err != nil {
		return Outcome{}, err
	}
	if err := os.MkdirAll(reports, 0o750); err != nil {
		return Outcome{}, err
	}
	args := make([]string, len(k.Command))
	for i, a := range k.Command {
		args[i] = strings.NewReplacer("{target}", target, "{reports}", reports).Replace(a)
	}
	bctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	cmd := exec.CommandContext(bctx, args[0], args[1:]...) //nolint:gosec // the operator's --killer command
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out := &tail{}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err := cmd.Run()
	o := Outcome{Seconds: time.Since(start).Seconds(), Said: out.lines(6)}
	if ctx.Err() != nil {
		return o, ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case bctx.Err() != nil:
		o.TimedOut, o.Exit = true, -1
	case errors.As(err, &exit):
		o.Exit = exit.ExitCode()
	case err != nil:
		return o, fmt.Errorf("killer %s: %w", k.Name, err)
	}
	o.Failures, o.Warnings = readReports(reports)
	return o, nil
}

// readReports names what failed in the reports a run left in dir, and the
// readings it warned of: the scenarios of summary.json (location and name)
// and its warnings, and the properties of generated-summary.json
// (operation and property) and theirs. A report that is missing or of
// another shape names nothing.
func readReports(dir string) (failures, warnings []string) {
	type warning struct {
		Reading string `json:"reading"`
	}
	var suite struct {
		Scenarios []struct {
			Name     string `json:"name"`
			Location string `json:"location"`
			Status   string `json:"status"`
		} `json:"scenarios"`
		Warnings []warning `json:"warnings"`
	}
	if readJSON(filepath.Join(dir, "summary.json"), &suite) {
		for _, s := range suite.Scenarios {
			if s.Status == "failed" {
				failures = append(failures, s.Location+" "+s.Name)
			}
		}
		for _, w := range suite.Warnings {
			warnings = append(warnings, "reading "+w.Reading)
		}
	}
	var gen struct {
		Properties []struct {
			Operation string    `json:"operation"`
			Property  string    `json:"property"`
			Status    string    `json:"status"`
			Warnings  []warning `json:"warnings"`
		} `json:"properties"`
	}
	if readJSON(filepath.Join(dir, "generated-summary.json"), &gen) {
		for _, p := range gen.Properties {
			if p.Status == "failed" {
				failures = append(failures, "generated: "+p.Operation+": "+p.Property)
			}
			for _, w := range p.Warnings {
				if r := "reading " + w.Reading; !slices.Contains(warnings, r) {
					warnings = append(warnings, r)
				}
			}
		}
	}
	return failures, warnings
}

func readJSON(path string, v any) bool {
	data, err := os.ReadFile(path) //nolint:gosec // a report the killer wrote
	return err == nil && json.Unmarshal(data, v) == nil
}
