package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/loadtest/verdict"
)

// TestReportListsAtMostMaxDetailsPerInvariant: the report fails on every
// violation and lists the first of an invariant, then says how many more.
func TestReportListsAtMostMaxDetailsPerInvariant(t *testing.T) {
	t.Parallel()
	var ledger []record.Payment
	for i := range 40 {
		id := string(rune('a'+i%26)) + string(rune('a'+i/26))
		ledger = append(ledger, recordtest.Created(id, uint64(2*i), "A", 1, 0), recordtest.Created(id, uint64(2*i+1), "A", 1, 0))
	}
	r := reconcile(t, ledger)
	require.Positive(t, r.Omitted(verdict.InvUniqueID))
	rep := &Report{Requests: 1, Expected: 1, Reconciliation: r}
	rep.finish(nil)
	assert.Contains(t, rep.Failures, fmt.Sprintf("%d invariant violations", r.ViolationCount()))
	var b strings.Builder
	require.NoError(t, Text(rep)(&b))
	assert.Contains(t, b.String(), fmt.Sprintf("[%s] … and %d more", verdict.InvUniqueID, r.Omitted(verdict.InvUniqueID)))
}

func TestReportStatusCodes(t *testing.T) {
	t.Parallel()
	now := time.Now()
	res := func(code uint16) record.HitResult {
		return record.HitResult{Result: record.Result{Result: vegeta.Result{Code: code, Timestamp: now}, Scheduled: now, Op: record.OpCreate}}
	}
	rep := BuildReport(recordtest.Record(t, &record.Run{}, res(200), res(409), res(200), res(0)), nil, nil)
	assert.Equal(t, map[string]int{"200": 2, "409": 1, "0": 1}, rep.StatusCodes)
	rep = BuildReport(recordtest.Record(t, &record.Run{}), nil, nil)
	assert.NotNil(t, rep.StatusCodes) // written as {} rather than null
	assert.Empty(t, rep.StatusCodes)
}

// reconcile is the reconciliation of ledger and the wallets snaps, as
// verdict.Judge reconciles a run's record.
func reconcile(tb testing.TB, ledger []record.Payment, snaps ...record.AccountSnapshot) *verdict.Reconciliation {
	tb.Helper()
	v, err := verdict.Judge(recordtest.Ledger(tb, ledger, snaps...), time.Second)
	require.NoError(tb, err)
	return v.Reconciliation
}
