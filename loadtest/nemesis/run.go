package nemesis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"
)

// Fault is one firing of a step: when its command started, and when the
// fault ended (its command, or its recover command, returned).
type Fault struct {
	Step    int       `json:"step"` // from 1, in the schedule's order
	Name    string    `json:"name"`
	Command string    `json:"command"`
	Recover string    `json:"recover,omitempty"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	// Error says why a command failed (it did not start, exited non-zero,
	// or was killed at its timeout); empty when every command succeeded.
	Error string `json:"error,omitempty"`
}

// Execution is a schedule being carried out.
type Execution struct {
	stop   context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	faults []Fault
	log    io.Writer
	logMu  sync.Mutex
}

// Start carries out s from began, the attack's start, for an attack of the
// given duration, writing each command's output to log. Commands run on
// even when ctx is cancelled (an interrupted run still recovers every
// fault it began), each bounded by its timeout; only faults not yet
// started are dropped.
func Start(ctx context.Context, s Schedule, began time.Time, duration time.Duration, log io.Writer) *Execution {
	ctx, stop := context.WithCancel(ctx)
	r := &Execution{stop: stop, log: log}
	if f, ok := log.(*os.File); ok {
		r.log = f // the children write to the file itself
	} else {
		r.log = &lockedWriter{w: log, mu: &r.logMu}
	}
	for i, st := range s {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.step(ctx, i+1, s.Label(i), st, began, duration)
		}()
	}
	return r
}

// Stop starts no further fault, waits for those under way (their recovery
// included), and returns every fault in the order they started.
func (r *Execution) Stop() []Fault {
	r.stop()
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	sort.SliceStable(r.faults, func(i, j int) bool { return r.faults[i].Start.Before(r.faults[j].Start) })
	return r.faults
}

// step fires st at each of its times, one fault after the other: a time
// that comes while the previous fault is still under way waits for it.
func (r *Execution) step(ctx context.Context, n int, label string, st Step, began time.Time, duration time.Duration) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for _, at := range st.times(duration) {
		if wait := time.Until(began.Add(at)); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
		}
		if ctx.Err() != nil {
			return
		}
		f := Fault{Step: n, Name: label, Command: st.Run.String(), Start: time.Now()}
		var errs []error
		if err := r.exec(ctx, n, "run", st.Run, st); err != nil {
			errs = append(errs, err)
		}
		if len(st.Recover) > 0 {
			f.Recover = st.Recover.String()
			timer.Reset(st.For)
			select {
			case <-timer.C:
			case <-ctx.Done(): // the attack ended: end the fault now
			}
			if err := r.exec(ctx, n, "recover", st.Recover, st); err != nil {
				errs = append(errs, fmt.Errorf("recover: %w", err))
			}
		}
		f.End = time.Now()
		if err := errors.Join(errs...); err != nil {
			f.Error = err.Error()
		}
		r.mu.Lock()
		r.faults = append(r.faults, f)
		r.mu.Unlock()
	}
}

// exec runs one command of step n to its end or its timeout, its output
// going to the log.
func (r *Execution) exec(ctx context.Context, n int, what string, c Command, st Step) error {
	timeout := st.timeout()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	name, args := c[0], c[1:]
	if st.Shell {
		name, args = "sh", []string{"-c", c[0]}
	}
	cmd := exec.CommandContext(cctx, name, args...)
	cmd.Stdout, cmd.Stderr = r.log, r.log
	cmd.Stdin = nil
	groupKill(cmd)
	// A command that leaves a child holding its output open (a server
	// started in the background) must not hold the run: past this, Wait
	// returns without the rest of the output.
	cmd.WaitDelay = time.Second
	r.logf("%s nemesis step %d %s: %s\n", time.Now().UTC().Format("15:04:05.000"), n, what, c)
	err := cmd.Run()
	switch {
	case cctx.Err() == context.DeadlineExceeded:
		err = fmt.Errorf("%s: timed out after %s (killed)", c, timeout)
	case err != nil:
		err = fmt.Errorf("%s: %w", c, errNotFound(err))
	}
	status := "ok"
	if err != nil {
		status = err.Error()
	}
	r.logf("%s nemesis step %d %s ended: %s\n", time.Now().UTC().Format("15:04:05.000"), n, what, status)
	return err
}

// logf writes one line to the log in one Write.
func (r *Execution) logf(format string, args ...any) { fmt.Fprintf(r.log, format, args...) }

// lockedWriter serialises writes to a writer that is not a file (the
// commands' output is copied to it from several goroutines).
type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
