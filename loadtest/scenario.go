package loadtest

import (
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
)

// scenario is a kind of traffic: how a hit of the schedule becomes requests,
// and which options it needs. The engine and the planner ask the scenario
// rather than switch on its name; a new scenario is a new type in this list.
type scenario interface {
	// name is the scenario's name on the command line and in reports.
	name() string
	// check validates the options the scenario depends on.
	check(c *config) error
	// perHit is how many requests one scheduled hit sends. A hit of one
	// request is built by the worker that sends it, so that the pacing
	// goroutine only paces; the requests of a larger hit are built by the
	// pacing goroutine and sent concurrently.
	perHit(c *config) int
	// describe records the scenario's options in the run's meta.
	describe(c *config, m *record.Meta)
	// jobs appends the requests of hit n to buf.
	jobs(p *planner, n uint64, buf []job) []job
	// keepsIDs is true when the created ids are kept for status reads.
	keepsIDs() bool
}

// paymentsPlanner is implemented by a scenario whose requests are not one
// payment each: payments says how many payments (distinct ids) requests
// requests make. Other scenarios make one payment per request.
type paymentsPlanner interface {
	payments(c *config, requests float64) float64
}

// paymentsOf is how many payments requests requests of sc make.
func paymentsOf(sc scenario, c *config, requests float64) float64 {
	if pp, ok := sc.(paymentsPlanner); ok {
		return pp.payments(c, requests)
	}
	return requests
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

// createScenario: one payment creation per hit, each with its own id.
type createScenario struct{}

func (createScenario) name() string                   { return ScenarioCreate }
func (createScenario) check(*config) error            { return nil }
func (createScenario) perHit(*config) int             { return 1 }
func (createScenario) describe(*config, *record.Meta) {}
func (createScenario) keepsIDs() bool                 { return false }

func (createScenario) jobs(p *planner, n uint64, buf []job) []job {
	return append(buf, p.createJob(n))
}

// idempotencyScenario: each hit is a wave of waveSize identical requests
// (one partner_trx_id, one body) sent at once.
type idempotencyScenario struct{}

func (idempotencyScenario) name() string   { return ScenarioIdempotency }
func (idempotencyScenario) keepsIDs() bool { return false }

func (idempotencyScenario) check(c *config) error {
	if c.WaveSize < 2 || (c.MaxWorkers > 0 && c.WaveSize > c.MaxWorkers) {
		return fmt.Errorf("wave size must be between 2 and max workers (%s)", readable.Cap(c.MaxWorkers))
	}
	return nil
}

func (idempotencyScenario) perHit(c *config) int { return c.WaveSize }

func (idempotencyScenario) payments(c *config, requests float64) float64 {
	return requests / float64(c.WaveSize)
}

func (idempotencyScenario) describe(c *config, m *record.Meta) { m.WaveSize = c.WaveSize }

func (idempotencyScenario) jobs(p *planner, n uint64, buf []job) []job {
	base := n * uint64(p.waveSize)
	id := p.ids.ID(base)
	acct := p.accounts[n%uint64(len(p.accounts))]
	c, pay, _ := p.create(n, id, acct, false) // a wave pays once per id: not held to the budgets
	for i := range p.waveSize {
		pc := *pay
		pc.Seq = base + uint64(i)
		pc.Wave = p.waveSize
		buf = append(buf, job{seq: pc.Seq, call: c, pay: &pc, wave: true})
	}
	return buf
}

// mixedScenario: payment creations mixed by weight with status look-ups of
// ids created so far and product list and sync reads.
type mixedScenario struct{}

func (mixedScenario) name() string        { return ScenarioMixed }
func (mixedScenario) check(*config) error { return nil }
func (mixedScenario) perHit(*config) int  { return 1 }
func (mixedScenario) keepsIDs() bool      { return true }

func (mixedScenario) describe(c *config, m *record.Meta) { m.OpMix = c.ops.String() }

func (mixedScenario) payments(c *config, requests float64) float64 {
	return requests * float64(c.ops[record.OpCreate]) / float64(c.ops.total())
}

// jobs depends only on n (and, for a status look-up, on the ids created so
// far), so any worker can build it. A read that cannot be made yet (no id
// created, no sub category) becomes a creation.
func (mixedScenario) jobs(p *planner, n uint64, buf []job) []job {
	switch p.opPicker.pick(mix64(n ^ 0x9e3779b97f4a7c15)) {
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
