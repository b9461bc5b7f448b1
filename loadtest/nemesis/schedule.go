// Package nemesis runs a fault schedule during a load test, as Jepsen's
// nemesis does: commands the user gives (restart a server, kill -STOP and
// -CONT, kubectl delete pod, a tc rule) at given times or every interval,
// each recorded with when it started and ended, so that the reports can put
// every answer of the run beside the faults it crossed.
//
// Commands run without a shell unless a step asks for one, each with a
// timeout, their output going to a log file. A schedule is checked before
// the attack (times within the run, every program found), so that bad
// input stops the run before anything is sent.
package nemesis

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// DefaultTimeout bounds each command of a step that sets none.
const DefaultTimeout = 10 * time.Second

// MaxFirings bounds the faults one schedule may start, so that a tiny
// interval over a long run cannot flood the target with commands.
const MaxFirings = 10_000

// Step is one line of a schedule: a command run at At, and every Every
// after that until Until (0: the end of the attack). With For, the fault
// lasts that long after its command ends, and Recover ends it (kill -STOP,
// then kill -CONT); without, the fault is the command itself (a restart).
type Step struct {
	Name    string        `yaml:"name,omitempty" json:"name,omitempty"`
	At      time.Duration `yaml:"at,omitempty" json:"at,omitempty"`
	Every   time.Duration `yaml:"every,omitempty" json:"every,omitempty"`
	Until   time.Duration `yaml:"until,omitempty" json:"until,omitempty"`
	Run     Command       `yaml:"run" json:"run"`
	For     time.Duration `yaml:"for,omitempty" json:"for,omitempty"`
	Recover Command       `yaml:"recover,omitempty" json:"recover,omitempty"`
	// Shell runs Run and Recover with `sh -c`, for pipes, $(...) and the
	// like; without it they are run directly.
	Shell   bool          `yaml:"shell,omitempty" json:"shell,omitempty"`
	Timeout time.Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
}

// Command is a program and its arguments. In YAML it is a list, or a
// string split at spaces (quotes keep a part whole); with a shell, the
// string is given to the shell as it is.
type Command []string

// UnmarshalYAML reads a list of strings or one string.
func (c *Command) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		parts, err := splitCommand(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		*c = parts
		return nil
	}
	var parts []string
	if err := n.Decode(&parts); err != nil {
		return fmt.Errorf("line %d: a command is a string or a list of strings", n.Line)
	}
	*c = parts
	return nil
}

// String is the command as one line, each part with spaces quoted.
func (c Command) String() string {
	parts := make([]string, len(c))
	for i, p := range c {
		if p == "" || strings.ContainsAny(p, " \t'\"") {
			p = fmt.Sprintf("%q", p)
		}
		parts[i] = p
	}
	return strings.Join(parts, " ")
}

// Schedule is every step of a run's nemesis.
type Schedule []Step

// Set adds the step v (ParseStep) to s: a *Schedule is a repeatable flag.
func (s *Schedule) Set(v string) error {
	st, err := ParseStep(v)
	if err == nil {
		*s = append(*s, st)
	}
	return err
}

// String names the steps of s, for a flag's default ("" when none).
func (s *Schedule) String() string {
	if s == nil {
		return ""
	}
	names := make([]string, len(*s))
	for i := range *s {
		names[i] = s.Label(i)
	}
	return strings.Join(names, ", ")
}

// Label names step i in reports: its name, or its command.
func (s Schedule) Label(i int) string {
	if s[i].Name != "" {
		return s[i].Name
	}
	return s[i].Run.String()
}

// Validate checks s against a run of the given duration: every time
// within it, intervals that fire at most MaxFirings times, and every
// program found (a shell step needs sh). lookPath is exec.LookPath but for
// tests.
func (s Schedule) Validate(duration time.Duration, lookPath func(string) (string, error)) error {
	firings := 0
	for i, st := range s {
		where := fmt.Sprintf("nemesis step %d (%s)", i+1, s.Label(i))
		switch {
		case len(st.Run) == 0 || strings.TrimSpace(st.Run[0]) == "":
			return fmt.Errorf("%s: no command to run", where)
		case st.At < 0 || st.Every < 0 || st.Until < 0 || st.For < 0 || st.Timeout < 0:
			return fmt.Errorf("%s: times must not be negative", where)
		case st.At >= duration:
			return fmt.Errorf("%s: at %s is not within the attack's %s", where, st.At, duration)
		case st.Until > 0 && st.Until < st.At:
			return fmt.Errorf("%s: until %s is before at %s", where, st.Until, st.At)
		case st.Until > 0 && st.Every == 0:
			return fmt.Errorf("%s: until needs every", where)
		case st.For > 0 && len(st.Recover) == 0:
			return fmt.Errorf("%s: for %s needs a recover command that ends the fault", where, st.For)
		case st.For == 0 && len(st.Recover) > 0:
			return fmt.Errorf("%s: a recover command needs for (how long the fault lasts)", where)
		}
		if st.Every > 0 && st.Every < 10*time.Millisecond {
			return fmt.Errorf("%s: every %s is below 10ms", where, st.Every)
		}
		firings += len(st.times(duration))
		if firings > MaxFirings {
			return fmt.Errorf("nemesis: the schedule starts more than %d faults", MaxFirings)
		}
		for _, c := range []Command{st.Run, st.Recover} {
			if len(c) == 0 {
				continue
			}
			prog := c[0]
			if st.Shell {
				prog = "sh"
			}
			if _, err := lookPath(prog); err != nil {
				return fmt.Errorf("%s: %s: %w", where, prog, errNotFound(err))
			}
		}
	}
	return nil
}

// errNotFound shortens exec's error for a program that is not there.
func errNotFound(err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return errors.New("no such program (not in $PATH, or no such file)")
	}
	return err
}

// times is when st starts a fault in an attack of duration d.
func (st Step) times(d time.Duration) []time.Duration {
	if st.Every == 0 {
		return []time.Duration{st.At}
	}
	end := d
	if st.Until > 0 {
		end = min(st.Until, d)
	}
	var out []time.Duration
	for t := st.At; t <= end && t < d && len(out) <= MaxFirings; t += st.Every {
		out = append(out, t)
	}
	return out
}

// timeout is the bound of each of st's commands.
func (st Step) timeout() time.Duration {
	if st.Timeout > 0 {
		return st.Timeout
	}
	return DefaultTimeout
}

// ParseStep reads the flag form of a step:
//
//	at 3s: systemctl restart payments
//	every 4s from 2s until 20s: kubectl delete pod -l app=payments
//	at 5s for 2s: kill -STOP 4242 ;; kill -CONT 4242
//	every 3s shell timeout 5s: kill -KILL $(cat server.pid)
//
// Before the colon, keywords: at or from T (the first fault), every D,
// until T, for D (then " ;; " separates the command that ends the fault),
// timeout D, shell, name NAME. After it, the command.
func ParseStep(s string) (Step, error) {
	when, cmd, ok := strings.Cut(s, ":")
	if !ok {
		return Step{}, fmt.Errorf("nemesis %q: want WHEN: COMMAND, e.g. \"every 5s: kill -KILL 4242\"", s)
	}
	var st Step
	said := false // when: at, from or every
	words := strings.Fields(when)
	dur := func(i int, what string) (time.Duration, error) {
		if i+1 >= len(words) {
			return 0, fmt.Errorf("nemesis %q: %s needs a duration", s, what)
		}
		d, err := time.ParseDuration(words[i+1])
		if err != nil {
			return 0, fmt.Errorf("nemesis %q: %s: %w", s, what, err)
		}
		return d, nil
	}
	for i := 0; i < len(words); i++ {
		var err error
		switch w := words[i]; w {
		case "at", "from":
			st.At, err = dur(i, w)
			said = true
			i++
		case "every":
			st.Every, err = dur(i, w)
			said = true
			i++
		case "until":
			st.Until, err = dur(i, w)
			i++
		case "for":
			st.For, err = dur(i, w)
			i++
		case "timeout":
			st.Timeout, err = dur(i, w)
			i++
		case "shell":
			st.Shell = true
		case "name":
			if i+1 >= len(words) {
				return Step{}, fmt.Errorf("nemesis %q: name needs a word", s)
			}
			st.Name = words[i+1]
			i++
		default:
			return Step{}, fmt.Errorf("nemesis %q: unknown word %q before the colon (want at, from, every, until, for, timeout, shell, name)", s, w)
		}
		if err != nil {
			return Step{}, err
		}
	}
	if !said {
		return Step{}, fmt.Errorf("nemesis %q: say when: at T, or every D", s)
	}
	run, recover, hasRecover := strings.Cut(cmd, " ;; ")
	var err error
	if st.Run, err = command(run, st.Shell); err != nil {
		return Step{}, fmt.Errorf("nemesis %q: %w", s, err)
	}
	if hasRecover {
		if st.Recover, err = command(recover, st.Shell); err != nil {
			return Step{}, fmt.Errorf("nemesis %q: recover: %w", s, err)
		}
	}
	return st, nil
}

// command splits a command line, or keeps it whole for a shell.
func command(s string, shell bool) (Command, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("no command after the colon")
	}
	if shell {
		return Command{s}, nil
	}
	return splitCommand(s)
}

// splitCommand splits s at spaces; single or double quotes keep a part
// whole (no escapes, no variables: that is what a shell step is for).
func splitCommand(s string) (Command, error) {
	var parts Command
	var cur strings.Builder
	in, quote, started := false, byte(0), false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case in && ch == quote:
			in = false
		case in:
			cur.WriteByte(ch)
		case ch == '"' || ch == '\'':
			in, quote, started = true, ch, true
		case ch == ' ' || ch == '\t':
			if started {
				parts = append(parts, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteByte(ch)
			started = true
		}
	}
	if in {
		return nil, fmt.Errorf("command %q: unclosed quote", s)
	}
	if started {
		parts = append(parts, cur.String())
	}
	return parts, nil
}
