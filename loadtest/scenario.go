package loadtest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// The scenario names, as the command line and the reports write them.
const (
	// ScenarioCreate is open-model payment creation, one unique
	// partner_trx_id per request.
	ScenarioCreate = "create"
	// ScenarioIdempotency sends waves of N concurrent requests with the same
	// partner_trx_id; the rate counts waves.
	ScenarioIdempotency = "idempotency"
	// ScenarioMixed mixes payment creation with status look-ups and product
	// list and sync reads.
	ScenarioMixed = "mixed"
	// ScenarioRetry sends each payment with a short client timeout and, when
	// the answer is lost (timeout, lost connection), sends it again with the
	// same partner_trx_id and body after a backoff, as a careful partner
	// integration would; a throttled payment (429, or 503 with Retry-After:
	// not processed) is sent again the same way after the wait its answer
	// asks for. The server must never debit twice: a 409 on a retry
	// is allowed (the document refuses a used id), and the payment's outcome
	// is then read through payment status.
	ScenarioRetry = "retry"
)

// scenario is a kind of traffic: how a hit of the schedule becomes requests,
// and which settings it needs. The engine and the planner ask the scenario
// rather than switch on its name; a new scenario is a new type in this list.
type scenario interface {
	// name is the scenario's name on the command line and in reports.
	name() string
	// check validates the settings the scenario depends on.
	check(s *record.Settings) error
	// perHit is how many requests one scheduled hit sends, on average:
	// rates count requests, so the schedule paces rate ÷ perHit hits.
	perHit(s *record.Settings) float64
	// hitSize is how many requests hit n sends. A hit of one request is
	// built by the worker that sends it, so that the pacing goroutine only
	// paces; the requests of a larger hit (a wave) are built by the pacing
	// goroutine and sent at once.
	hitSize(p *planner, n uint64) int
	// payments is how many payments (distinct ids) requests requests make.
	payments(s *record.Settings, requests float64) float64
	// describe clears, in a run's meta, the settings it does not use.
	describe(m *record.Meta)
	// jobs appends the requests of hit n to buf.
	jobs(p *planner, n uint64, buf []job) []job
	// keepsIDs is true when the created ids are kept for status reads.
	keepsIDs() bool
	// sendsIDsAgain is true when one partner_trx_id is sent more than
	// once (a wave's, a retry's): the collector then finds an id created
	// again as its answer comes.
	sendsIDsAgain(s *record.Settings) bool
}

// scenarios are the load tester's scenarios, in the order help lists them.
var scenarios = []scenario{createScenario{}, idempotencyScenario{}, mixedScenario{}, retryScenario{}}

// Scenarios lists the scenario names.
func Scenarios() []string {
	names := make([]string, len(scenarios))
	for i, s := range scenarios {
		names[i] = s.name()
	}
	return names
}

// scenarioNamed returns the scenario called name.
func scenarioNamed(name string) (scenario, error) {
	for _, s := range scenarios {
		if s.name() == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown scenario %q (want %s)", name, strings.Join(Scenarios(), ", "))
}

// onePayment is what a scenario of one payment or read per request,
// without settings of its own, answers; the others override it.
type onePayment struct{}

func (onePayment) check(*record.Settings) error                          { return nil }
func (onePayment) perHit(*record.Settings) float64                       { return 1 }
func (onePayment) hitSize(*planner, uint64) int                          { return 1 }
func (onePayment) payments(_ *record.Settings, requests float64) float64 { return requests }
func (onePayment) describe(m *record.Meta)                               { m.WaveSize, m.OpMix = 0, "" }
func (onePayment) keepsIDs() bool                                        { return false }
func (onePayment) sendsIDsAgain(*record.Settings) bool                   { return false }

// createScenario: one payment creation per hit, each with its own id.
type createScenario struct{ onePayment }

func (createScenario) name() string { return ScenarioCreate }

func (createScenario) jobs(p *planner, n uint64, buf []job) []job {
	return append(buf, p.createJob(n))
}

// idempotencyScenario: each hit is a wave of waveSize identical requests
// (one partner_trx_id, one body) sent at once.
type idempotencyScenario struct{ onePayment }

func (idempotencyScenario) name() string { return ScenarioIdempotency }

func (idempotencyScenario) check(s *record.Settings) error { return checkWaveSize(s) }

// checkWaveSize checks the wave size of a scenario that sends waves.
func checkWaveSize(s *record.Settings) error {
	if s.WaveSize < 2 || (s.MaxWorkers > 0 && s.WaveSize > s.MaxWorkers) {
		return fmt.Errorf("wave size must be between 2 and max workers (%s)", readable.Cap(s.MaxWorkers))
	}
	return nil
}

func (idempotencyScenario) perHit(s *record.Settings) float64 { return float64(s.WaveSize) }
func (idempotencyScenario) hitSize(p *planner, _ uint64) int  { return p.waveSize }

func (idempotencyScenario) payments(s *record.Settings, requests float64) float64 {
	return requests / float64(s.WaveSize)
}

func (idempotencyScenario) describe(m *record.Meta)             { m.OpMix = "" }
func (idempotencyScenario) sendsIDsAgain(*record.Settings) bool { return true }

func (idempotencyScenario) jobs(p *planner, n uint64, buf []job) []job {
	return p.waveJobs(n, buf)
}

// mixedScenario: payment creations mixed by weight with status look-ups of
// ids created so far, product list and sync reads, and waves of one id
// (opWave: a hit of wave-size requests with one partner_trx_id, sent at
// once, as the idempotency scenario's).
type mixedScenario struct{}

func (mixedScenario) name() string   { return ScenarioMixed }
func (mixedScenario) keepsIDs() bool { return true }

func (mixedScenario) check(s *record.Settings) error {
	if waveShare(s) == 0 {
		return nil
	}
	if err := checkWaveSize(s); err != nil {
		return fmt.Errorf("the operation mix sends waves (wave in --ops): %w: lower --wave-size, raise --max-workers, or give wave no weight", err)
	}
	return nil
}

func (mixedScenario) describe(m *record.Meta) {
	if waveShare(&m.Settings) == 0 {
		m.WaveSize = 0
	}
}

func (mixedScenario) sendsIDsAgain(s *record.Settings) bool { return waveShare(s) > 0 }

// waveShare is the share of the mixed scenario's hits that are waves.
func waveShare(s *record.Settings) float64 {
	ops, _ := parseWeights(s.OpMix, opOrder...) // checked by validate
	if ops.total() == 0 {
		return 0
	}
	return float64(ops[opWave]) / float64(ops.total())
}

func (mixedScenario) perHit(s *record.Settings) float64 {
	return 1 + waveShare(s)*float64(s.WaveSize-1)
}

func (mixedScenario) hitSize(p *planner, n uint64) int {
	if p.mixedOp(n) == opWave {
		return p.waveSize
	}
	return 1
}

func (sc mixedScenario) payments(s *record.Settings, requests float64) float64 {
	ops, _ := parseWeights(s.OpMix, opOrder...) // checked by validate
	hits := requests / sc.perHit(s)
	return hits * float64(ops[record.OpCreate]+ops[opWave]) / float64(ops.total())
}

// jobs depends only on n (and, for a status look-up, on the ids created so
// far), so any worker can build it. A read that cannot be made yet (no id
// created, no sub category) becomes a creation.
func (mixedScenario) jobs(p *planner, n uint64, buf []job) []job {
	switch p.mixedOp(n) {
	case opWave:
		return p.waveJobs(n, buf)
	case record.OpStatus:
		if r, ok := p.recentID(n); ok {
			return append(buf, job{seq: n, call: p.cl.paymentStatus(r.auth, r.id)})
		}
	case record.OpList:
		if len(p.subCats) > 0 {
			acct := p.accounts[n%uint64(len(p.accounts))]
			return append(buf, job{seq: n, call: p.cl.listProducts(acct.auth, msisdn(n), p.subCats[int(n)%len(p.subCats)])})
		}
	case record.OpSync:
		if len(p.subCats) > 0 {
			return append(buf, job{seq: n, call: p.cl.syncProducts(p.subCats[int(n)%len(p.subCats)], 1+int(n%3), 20)})
		}
	}
	return append(buf, p.createJob(n))
}

// retryScenario: one payment creation per hit, each with its own id, sent
// again after a lost answer.
type retryScenario struct{ onePayment }

func (retryScenario) name() string                        { return ScenarioRetry }
func (retryScenario) sendsIDsAgain(*record.Settings) bool { return true }

func (retryScenario) check(s *record.Settings) error {
	if s.Retries < 0 || s.Retries > 10 || s.RetryTimeout <= 0 || s.RetryBackoff < 0 {
		return errors.New("retry: retries must be from 0 to 10, the timeout above 0 and the backoff not negative")
	}
	return nil
}

func (retryScenario) jobs(p *planner, n uint64, buf []job) []job {
	j := p.createJob(n)
	j.pay.Attempt = 1
	return append(buf, j)
}
