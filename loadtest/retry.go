package loadtest

import (
	"errors"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// ScenarioRetry sends each payment with a short client timeout and, when
// the answer is lost (timeout, lost connection), sends it again with the
// same partner_trx_id and body after a backoff, as a careful partner
// integration would; a throttled payment (429, or 503 with Retry-After:
// not processed) is sent again the same way after the wait its answer
// asks for. The server must never debit twice: a 409 on a retry
// is allowed (the document refuses a used id), and the payment's outcome
// is then read through payment status.
const ScenarioRetry = "retry"

// retryScenario: one payment creation per hit, each with its own id, sent
// again after a lost answer.
type retryScenario struct{}

func (retryScenario) name() string   { return ScenarioRetry }
func (retryScenario) keepsIDs() bool { return false }
func (retryScenario) perHit(*config) int {
	return 1
}

func (retryScenario) check(c *config) error {
	if c.Retries < 0 || c.Retries > 10 || c.RetryTimeout <= 0 || c.RetryBackoff < 0 {
		return errors.New("retry: retries must be from 0 to 10, the timeout above 0 and the backoff not negative")
	}
	return nil
}

func (retryScenario) describe(*config, *record.Meta) {}

func (retryScenario) jobs(p *planner, n uint64, buf []job) []job {
	j := p.createJob(n)
	j.pay.Attempt = 1
	return append(buf, j)
}

// timeoutOf is the client timeout of job j: the retry scenario's short one
// for its payments, the run's otherwise.
func (e *engine) timeoutOf(j job) time.Duration {
	if j.pay != nil && j.pay.Attempt > 0 {
		return e.cfg.RetryTimeout
	}
	return e.cfg.Timeout
}

// send sends job j for worker client, records it and delivers its result.
// A payment of the retry scenario whose answer was lost is sent again,
// same id and body, after the backoff, up to the configured retries; so is
// a throttled one (not processed), after the wait its answer asks for
// (Retry-After), if longer. Each attempt is a result and a ledger entry of
// its own.
func (e *engine) send(j job, scheduled time.Time, client int, results chan<- record.HitResult) {
	for {
		r, hold := e.hit(j, scheduled)
		e.record(client, j, &r)
		results <- record.HitResult{Result: r, Pay: j.pay}
		p := j.pay
		if p == nil || p.Attempt == 0 || !r.Uncertain && !r.NotDelivered && !r.Throttled || p.Attempt > e.cfg.Retries {
			return
		}
		t := time.NewTimer(max(e.cfg.RetryBackoff<<(p.Attempt-1), hold))
		select {
		case <-t.C:
		case <-e.reqCtx.Done():
			t.Stop()
			return
		}
		next := record.Payment{ID: p.ID, Seq: p.Seq, Shard: p.Shard, Account: p.Account, Kind: p.Kind,
			ProductID: p.ProductID, MethodID: p.MethodID, MaxBalance: p.MaxBalance, MaxCoins: p.MaxCoins,
			Attempt: p.Attempt + 1}
		j.pay = &next
		scheduled = time.Now() // a retry is due when its backoff ends
	}
}
