// Package reprotest runs a reproduction (package repro) as its reader
// would: with sh, its variables set as its first line says, against the
// target it names or another one.
package reprotest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/profiles"
)

// NeedCurl skips t when curl is not installed: a reproduction is curl.
func NeedCurl(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed: a reproduction is a curl script")
	}
}

// Run runs script with sh -eu, its variables set from prof (repro.Env)
// beside the process's environment, and returns the last answer it
// printed (from its last status line). The script failing, or taking
// longer than a minute, fails t.
func Run(t testing.TB, script string, prof *profiles.Profile) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-eu", "-c", script)
	cmd.Env = append(os.Environ(), repro.Env(prof)...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("the reproduction failed: %v\n%s\nits errors:\n%s", err, script, errs.String())
	}
	s := strings.ReplaceAll(out.String(), "\r\n", "\n")
	i := strings.LastIndex(s, "HTTP/1.1 ")
	if i < 0 {
		t.Fatalf("the reproduction printed no answer:\n%s\nit printed:\n%s", script, s)
	}
	return s[i:]
}

// Verdict runs script as Run does, with env added to its environment, and
// returns its verdict: defect when it printed a line starting with
// repro.DefectWord and exited 1, not when it printed repro.NoDefectLine
// and exited 0; what it printed is out. Anything else (no verdict, another
// exit status, longer than two minutes) fails t.
func Verdict(t testing.TB, script string, prof *profiles.Profile, env ...string) (out string, defect bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-eu", "-c", script)
	cmd.Env = append(append(os.Environ(), repro.Env(prof)...), env...)
	var stdout, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &errs
	err := cmd.Run()
	out = stdout.String()
	code := cmd.ProcessState.ExitCode()
	defectLine := strings.HasPrefix(out, repro.DefectWord) || strings.Contains(out, "\n"+repro.DefectWord)
	switch {
	case code == 1 && defectLine:
		return out, true
	case err == nil && strings.Contains(out, repro.NoDefectLine) && !defectLine:
		return out, false
	}
	t.Fatalf("the reproduction gave no verdict (%v):\n%s\nit printed:\n%s\nits errors:\n%s", err, script, out, errs.String())
	return out, false
}

// Rebase is script sent to base instead of from: its BASE line changed.
// A script that does not set BASE to from fails t.
func Rebase(t testing.TB, script, from, base string) string {
	t.Helper()
	line := `BASE="` + strings.TrimRight(from, "/") + `"`
	if !strings.Contains(script, "\n"+line+"\n") && !strings.HasPrefix(script, line+"\n") {
		t.Fatalf("the reproduction does not set %s:\n%s", line, script)
	}
	return strings.Replace(script, line, `BASE="`+strings.TrimRight(base, "/")+`"`, 1)
}
