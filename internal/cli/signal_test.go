//go:build unix

package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestInterruptExitCode(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, ExitInterrupted}, {syscall.SIGTERM, ExitTerminated}} {
		ctx, stop := NotifyContext(context.Background())
		if err := syscall.Kill(os.Getpid(), tc.sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Minute):
			t.Fatalf("%v: the context was not cancelled", tc.sig)
		}
		stop()
		if got := InterruptExitCode(ctx); got != tc.want {
			t.Errorf("%v: exit code %d, want %d", tc.sig, got, tc.want)
		}
		if !errors.Is(context.Cause(ctx), context.Canceled) {
			t.Errorf("%v: the cause %v is not context.Canceled", tc.sig, context.Cause(ctx))
		}
		if !Signalled(ctx) {
			t.Errorf("%v: Signalled is false", tc.sig)
		}
	}
	ctx, stop := NotifyContext(context.Background())
	stop()
	if Signalled(ctx) {
		t.Error("Signalled is true after stop, with no signal")
	}
}

// TestSignalProcess is not a test: TestSecondSignalEndsTheProcess runs the
// test binary again with CLI_SIGNAL_PROCESS set. It sends itself a signal,
// waits for NotifyContext's context to be cancelled, says so, and waits on
// its stdin, which the test never closes: only a second signal ends it.
func TestSignalProcess(t *testing.T) {
	if os.Getenv("CLI_SIGNAL_PROCESS") == "" {
		t.Skip("helper process for TestSecondSignalEndsTheProcess")
	}
	ctx, stop := NotifyContext(context.Background())
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	fmt.Println("cancelled")
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// TestSecondSignalEndsTheProcess: once NotifyContext's context is
// cancelled, the signals' default handling is back: a second SIGINT ends
// the process, however soon after it the signal comes. With
// signal.NotifyContext the second signal would only cancel the context
// again and the process would wait on.
func TestSecondSignalEndsTheProcess(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSignalProcess$")
	cmd.Env = append(os.Environ(), "CLI_SIGNAL_PROCESS=1")
	stdin, err := cmd.StdinPipe() // never written, closed when the process has ended
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "cancelled\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("the helper said %q (%v), want \"cancelled\"", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("the second signal did not end the process (killed: %v)", <-exited)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the process ended with %v, not by the signal", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("the process ended with %v, not by SIGINT", err)
	}
}
