package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	r := verdict.Reconcile(ledger, nil, true)
	require.Positive(t, r.Omitted(verdict.InvUniqueID))
	rep := &Report{Requests: 1, Expected: 1, Reconciliation: r}
	rep.finish(nil)
	assert.Contains(t, rep.Failures, fmt.Sprintf("%d invariant violations", r.ViolationCount()))
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	assert.Contains(t, b.String(), fmt.Sprintf("[%s] … and %d more", verdict.InvUniqueID, r.Omitted(verdict.InvUniqueID)))
}
