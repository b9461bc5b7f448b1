package verdict

import (
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// Verdicts are what the checks conclude from the record of a run.
type Verdicts struct {
	// Reconciliation is nil when the run was not reconciled.
	Reconciliation *Reconciliation
	// History is nil when the run recorded no history.
	History *HistoryCheck
	// Strict grades a check resting on a reading (Reconciliation.Warnings)
	// as a failure rather than a warning: the run is strict (--strict).
	Strict bool
}

// Judge checks the record of a run after its attack: the reconciliation of
// the ledger and wallets of a run that gathered them
// (record.Meta.Gathered), and the history check, bounded by
// historyTimeout, of a run that recorded its history. It fails only when
// the ledger or the history cannot be read.
func Judge(run *record.Run, historyTimeout time.Duration) (*Verdicts, error) {
	v := &Verdicts{}
	if run.Meta.Gathered() {
		r, err := reconcile(run, run.Accounts, run.Whole(), spillAfter)
		if err != nil {
			return nil, err
		}
		v.Reconciliation = r
	}
	if run.HasHistory() {
		h, err := checkHistory(run, historyTimeout, spillAfter)
		if err != nil {
			return nil, err
		}
		v.History = h
	}
	return v, nil
}
