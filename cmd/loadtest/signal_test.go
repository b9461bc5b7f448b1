//go:build unix

package main

import (
	"bufio"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// TestMainProcess is not a test: TestSecondInterruptEndsTheProcess runs the
// test binary again with LOADTEST_MAIN_ARGS set, and this calls main with
// those arguments.
func TestMainProcess(t *testing.T) {
	args := os.Getenv("LOADTEST_MAIN_ARGS")
	if args == "" {
		t.Skip("helper process for TestSecondInterruptEndsTheProcess")
	}
	os.Args = append([]string{"loadtest"}, strings.Fields(args)...)
	main()
	os.Exit(0)
}

// TestSecondInterruptEndsTheProcess: the first ^C lets the run wind down
// (here it would wait a minute for hung requests) and says so; the second,
// sent once it has said so, ends the process at once.
func TestSecondInterruptEndsTheProcess(t *testing.T) {
	t.Parallel()
	ds, err := reference.DefaultDataset()
	require.NoError(t, err)
	st, err := reference.NewStore(ds)
	require.NoError(t, err)
	ref := httpapi.NewServer(slog.New(slog.DiscardHandler), st)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/client/v2/payment" {
			select { // payments hang
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		ref.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(release); srv.Close() })

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMainProcess$")
	cmd.Env = append(os.Environ(), "LOADTEST_MAIN_ARGS=--target "+srv.URL+
		" --scenario create --rate 20 --duration 1m --timeout 1m --drain 1m --out "+t.TempDir())
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	attacking, interrupted := make(chan struct{}), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		var sent, told sync.Once
		for sc.Scan() {
			if strings.Contains(sc.Text(), "] sent ") {
				sent.Do(func() { close(attacking) })
			}
			if strings.HasPrefix(sc.Text(), "loadtest: interrupted: ") {
				told.Do(func() { close(interrupted) })
			}
		}
		exited <- cmd.Wait()
	}()
	select {
	case <-attacking:
	case err := <-exited:
		t.Fatalf("the run ended before the attack: %v", err)
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("no progress line within a minute")
	}

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	select {
	case <-interrupted:
	case err := <-exited:
		t.Fatalf("the run ended before it said it was interrupted: %v", err)
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the run did not say it was interrupted within a minute")
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	select {
	case err := <-exited:
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "%v", err)
		ws, ok := ee.Sys().(syscall.WaitStatus)
		require.True(t, ok)
		assert.True(t, ws.Signaled(), "ended by the second interrupt: %v", err)
		assert.Equal(t, syscall.SIGINT, ws.Signal())
	case <-time.After(30 * time.Second): // the drain would take a minute
		_ = cmd.Process.Kill()
		t.Fatalf("the second interrupt did not end the process within 30s (killed: %v)", <-exited)
	}
}
