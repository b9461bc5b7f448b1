package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
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

// NotifyContext returns a context cancelled by the first SIGINT or SIGTERM,
// its cause naming the signal as signal.NotifyContext's does ("interrupt
// signal received"). It listens for that first signal only: the signals'
// default handling is back before the context is cancelled, so that while
// the run winds down (writes its reports, drains) a second signal ends the
// process at once. stop releases the signals, if none came, and the context.
func NotifyContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs) // the default handling is back: a second signal ends the process
			cancel(signalError(s.String() + " signal received"))
		case <-ctx.Done():
			signal.Stop(sigs)
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

// signalError is the cause of a context cancelled by a signal: it is
// context.Canceled, as signal.NotifyContext's is.
type signalError string

func (s signalError) Error() string { return string(s) }

func (s signalError) Is(target error) bool { return target == context.Canceled }

// Signalled reports whether a signal cancelled ctx, a context from
// NotifyContext (not its stop).
func Signalled(ctx context.Context) bool {
	var s signalError
	return errors.As(context.Cause(ctx), &s)
}

// InterruptExitCode returns the exit code of the signal that cancelled ctx,
// a context from NotifyContext (or signal.NotifyContext): 143 for SIGTERM,
// else 130.
func InterruptExitCode(ctx context.Context) int {
	if cause := context.Cause(ctx); cause != nil && strings.HasPrefix(cause.Error(), syscall.SIGTERM.String()) {
		return ExitTerminated
	}
	return ExitInterrupted
}
