package cli

import (
	"context"
	"strings"
	"syscall"
)

// Exit codes of an interrupted run, the shell's 128 + the signal: CI
// systems cancel a job with SIGTERM, people with Ctrl-C (SIGINT). An
// interrupted run is not a verdict.
const (
	ExitInterrupted = 130 // SIGINT
	ExitTerminated  = 143 // SIGTERM
)

// InterruptExitCode returns the exit code of the signal that cancelled ctx,
// a context from signal.NotifyContext: 143 for SIGTERM, else 130.
func InterruptExitCode(ctx context.Context) int {
	if cause := context.Cause(ctx); cause != nil && strings.HasPrefix(cause.Error(), syscall.SIGTERM.String()) {
		return ExitTerminated
	}
	return ExitInterrupted
}
