package verdict

import (
	"encoding/json"
	"io"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// payments is a ledger a test holds, read as a run's ledger file is: one
// entry at a time.
type payments []record.Payment

func (ps payments) EachPayment(fn func(*record.Payment) error) error {
	for i := range ps {
		if err := fn(&ps[i]); err != nil {
			return err
		}
	}
	return nil
}

// historyOps is a history a test holds, read as a run's history file is.
type historyOps []record.HistoryOp

func (ops historyOps) EachHistoryOp(fn func(*record.HistoryOp) error) error {
	for i := range ops {
		if err := fn(&ops[i]); err != nil {
			return err
		}
	}
	return nil
}

// Reconcile reconciles the ledger ps and the wallets snapshots as Judge
// reconciles a run's.
func Reconcile(ps []record.Payment, snapshots []record.AccountSnapshot, final bool) *Reconciliation {
	r, _ := reconcile(payments(ps), snapshots, final, spillAfter) // reading a slice cannot fail
	return r
}

// CheckHistory checks the history ops as Judge checks a run's.
func CheckHistory(ops []record.HistoryOp, timeout time.Duration) *HistoryCheck {
	hc, _ := checkHistory(historyOps(ops), timeout, spillAfter) // reading a slice cannot fail
	return hc
}

// writeLines writes items as JSON lines, as a run's ledger and history
// files hold them.
func writeLines[T any](w io.Writer, items []T) error {
	enc := json.NewEncoder(w)
	for i := range items {
		if err := enc.Encode(&items[i]); err != nil {
			return err
		}
	}
	return nil
}
