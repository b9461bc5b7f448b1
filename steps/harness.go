package steps

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cucumber/godog"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/verdict"
)

// harness is the state shared by the scenarios of one run: configuration,
// the run's unique id, counters, the locks of shared fixture accounts, and
// the formatter that collects the results. Scenarios share no data through it.
type harness struct {
	profile   *profiles.Profile
	repro     reproTarget // how a failure's reproduction names the profile and reaches the target
	http      *http.Client
	timeout   time.Duration
	validator *contract.Validator
	runID     string
	counter   atomic.Int64
	coverage  *coverage
	strict    bool
	// gate holds the run off when the target throttles it (throttle.go).
	gate *throttle.Gate
	// gateway counts the gateway payments the scenarios needed (notjudged.go).
	gateway gatewayTally
	// created are the payments the scenarios created (created.go).
	created createdLog
	// sameID are the requests sent with each made-up partner_trx_id, for
	// the reproduction of a reuse (http.go).
	sameID sameIDLog
	// har is the first HAR file of a failure that could not be written
	// (repro.go).
	har harErrors

	// runCtx is the caller's context: its cancellation interrupts the run.
	runCtx context.Context
	// deadAfter requests in a row without an answer abort the run (abortCtx).
	deadAfter   int
	consecutive atomic.Int64
	// streakStart is when the current streak of requests without an answer
	// began (Unix nanoseconds).
	streakStart atomic.Int64
	abortCtx    context.Context
	abort       context.CancelCauseFunc
	// eps are the endpoints and their streaks: one the target stopped
	// answering is not sent any more (endpoints.go).
	eps endpoints

	features  *gherkin.Features
	selection *gherkin.Selection
	// fmt is the run's godog formatter: it collects the results.
	fmt *formatter

	mu        sync.Mutex // guards locks and stopped
	locks     map[string]*sync.Mutex
	stopped   *verdict.Stop // the target stopped answering, at stoppedAt
	stoppedAt time.Time
}

// newRunID returns 6 random decimal digits: phone numbers, emails and
// partner transaction ids of a run derive from it, so that runs against the
// same server do not collide.
func newRunID() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return fmt.Sprintf("%06d", time.Now().UnixNano()%1_000_000)
	}
	return fmt.Sprintf("%06d", n.Int64())
}

// next returns the next number of the run.
func (h *harness) next() int64 { return h.counter.Add(1) }

// lock takes the lock of a shared fixture account and returns its release.
func (h *harness) lock(key string) func() {
	h.mu.Lock()
	m, ok := h.locks[key]
	if !ok {
		m = &sync.Mutex{}
		h.locks[key] = m
	}
	h.mu.Unlock()
	m.Lock()
	var once sync.Once
	return func() { once.Do(m.Unlock) }
}

// initScenario is called by godog once per scenario: it gives the scenario
// its own state and binds the step definitions to it.
func (h *harness) initScenario(sc *godog.ScenarioContext) {
	s := &scenario{h: h}
	sc.Before(s.before)
	sc.After(s.after)
	g := gradedSteps{sc: sc, s: s}
	s.registerCommon(g)
	s.registerProducts(g)
	s.registerCustomers(g)
	s.registerPaymentMethods(g)
	s.registerPayments(g)
	s.registerStatus(g)
	s.registerAuth(g)
	s.registerReplay(g)
}

func (s *scenario) before(ctx context.Context, sc *godog.Scenario) (context.Context, error) {
	s.entry = s.h.features.Lookup(sc)
	if s.entry != nil && !s.h.selection.Chosen(s.entry) {
		// Another row of an outline selected by its row's line or tags.
		s.unselected = true
		return ctx, godog.ErrSkip
	}
	for _, t := range sc.Tags {
		s.tags = append(s.tags, strings.TrimPrefix(t.Name, "@"))
	}
	if reason := s.h.notStarted(); reason != "" {
		s.skip, s.notRun = reason, true
		return ctx, fmt.Errorf("%w: %s", godog.ErrSkip, s.skip)
	}
	var missing []string
	for _, t := range s.tags {
		for _, c := range profiles.Capabilities() {
			if string(c) == t {
				missing = append(missing, s.h.profile.Missing(c)...)
			}
		}
	}
	if len(missing) > 0 {
		s.skip = "the profile lacks " + strings.Join(missing, ", ")
		return ctx, fmt.Errorf("%w: %s", godog.ErrSkip, s.skip)
	}
	return ctx, nil
}

// after hands the verdict of the scenario to the run's formatter, which
// completes it with its steps as godog ran them.
func (s *scenario) after(ctx context.Context, sc *godog.Scenario, err error) (context.Context, error) {
	for i := len(s.unlock) - 1; i >= 0; i-- {
		s.unlock[i]()
	}
	s.unlock = nil
	if s.unselected {
		s.h.fmt.ended(sc, nil)
		return ctx, nil
	}
	r := verdict.Case{Name: sc.Name, Feature: gherkin.BaseURI(sc.Uri), Judge: verdict.JudgeScenarios, Tags: s.tags, Status: verdict.StatusPassed,
		Advisory: s.isAdvisory(), Readings: s.readings, Warnings: s.warnings, Entry: s.entry}
	if s.entry != nil {
		r.Location = s.entry.Location()
	}
	notRun := s.notRunReason(err)
	switch {
	case s.skip != "":
		r.Status, r.Reason, r.NotRun = verdict.StatusSkipped, s.skip, s.notRun
	case notRun != "":
		r.Status, r.Reason, r.NotRun = verdict.StatusSkipped, notRun, true
	case s.unjudged != nil && (err == nil || errors.Is(err, godog.ErrSkip)):
		r.Status, r.Reason, r.Cause = verdict.StatusNotJudged, s.unjudgedWhy, s.unjudged
	case errors.Is(err, godog.ErrUndefined) || errors.Is(err, godog.ErrPending):
		r.Status, r.Reason = verdict.StatusUndefined, err.Error()
	case err != nil && !errors.Is(err, godog.ErrSkip):
		r.Status, r.Reason, r.UnansweredAt = verdict.StatusFailed, err.Error(), s.unansweredAt
		if se := (*stepError)(nil); errors.As(err, &se) {
			r.Cause = &se.cause
		}
	}
	if r.Status == verdict.StatusFailed || (r.NotRun && s.endpointStopped != "") {
		r.UnansweredOn = s.unansweredOn
	}
	if r.Status == verdict.StatusFailed {
		if path := s.writeHAR(r.Location); path != "" {
			r.Reason = strings.TrimRight(r.Reason, "\n") + "\n  " + HARHead + " " + path + "\n"
		}
	}
	s.h.fmt.ended(sc, &r)
	return ctx, nil
}
