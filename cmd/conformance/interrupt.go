package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"syscall"
)

// Exit codes of an interrupted run, the shell's 128 + the signal: CI
// systems cancel a job with SIGTERM, people with Ctrl-C (SIGINT). An
// interrupted run is not a verdict: it writes no failure for what it did
// not finish.
const (
	exitInterrupted = 130 // SIGINT
	exitTerminated  = 143 // SIGTERM
)

// interrupted prints INTERRUPTED and returns the exit code of the signal
// that cancelled ctx.
func interrupted(ctx context.Context, human io.Writer) int {
	fmt.Fprintln(human, "INTERRUPTED")
	if cause := context.Cause(ctx); cause != nil && strings.HasPrefix(cause.Error(), syscall.SIGTERM.String()) {
		return exitTerminated
	}
	return exitInterrupted
}
