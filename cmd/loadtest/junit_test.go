package main

import (
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/junit/junittest"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// TestJUnitOfAPassingRun: every invariant class and every threshold has a
// test case, and all pass. (The reference holds its payments in pairs, and
// the run's waves put the wallets and the reused ids to the test: a run
// that did not would skip their cases, not pass them.)
func TestJUnitOfAPassingRun(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(recordtest.Paired(httpapitest.Handler(t)))
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "load.xml")
	out, stderr, err := runCLI(t, "--target", srv.URL, "--scenario", "idempotency", "--wave-size", "4", "--rate", "40", "--duration", "500ms", "--quiet", "--out", t.TempDir(),
		"--junit", path, "--max-p99", "5s", "--max-duplicate-debits", "0")
	require.NoError(t, err, out+stderr)
	ju, cases := junittest.Read(t, path)
	assert.Zero(t, ju.Failures+ju.Errors)
	for _, name := range []string{"the run passes", "lost writes", "duplicate debits", "idempotency waves", "wallet mismatches", "uncertain requests",
		"contract violations", "gateway answers", "p99<=5s", "duplicate_debits<=0", "uncertain_pct<=1%", "server_errors<=1%"} {
		c, ok := cases[name]
		if assert.True(t, ok, "no test case %q", name) {
			assert.Empty(t, c.Failures, name)
			assert.Empty(t, c.Skipped, name)
		}
	}
}

// TestJUnitOfAFailingRun: against a reference that creates a second
// transaction for a reused partner_trx_id, an idempotency run fails: the
// duplicate debits' case and threshold fail with the count measured, the
// run's case fails, and the classes the fault did not break pass.
func TestJUnitOfAFailingRun(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t, reference.FaultDuplicateTrxAccepted)
	path := filepath.Join(t.TempDir(), "load.xml")
	_, _, err := runCLI(t, "--target", srv.URL, "--scenario", "idempotency", "--wave-size", "4", "--rate", "40", "--duration", "500ms",
		"--quiet", "--out", t.TempDir(), "--junit", path, "--max-duplicate-debits", "0")
	require.ErrorIs(t, err, errFailed)
	ju, cases := junittest.Read(t, path)
	assert.Positive(t, ju.Failures)

	dup := cases["duplicate debits"]
	require.Len(t, dup.Failures, 1, "the duplicate debits' case passed")
	assert.Regexp(t, `^[1-9][0-9]* ids created more than once: [1-9][0-9]* duplicate debits`, dup.Failures[0].Message)
	th := cases["duplicate_debits<=0"]
	require.Len(t, th.Failures, 1, "the threshold's case passed")
	assert.Regexp(t, `^threshold duplicate_debits<=0: duplicate_debits measured [1-9][0-9]*\.000 in scenario idempotency`, th.Failures[0].Message)
	waves := cases["idempotency waves"]
	require.Len(t, waves.Failures, 1, "the waves' case passed")
	assert.Contains(t, waves.Failures[0].Message, "(a consequence of: a reused partner_trx_id was accepted: ", "the waves broke because the ids were created twice")
	require.Len(t, cases["the run passes"].Failures, 1)
	assert.Contains(t, cases["the run passes"].Failures[0].Body, "a reused partner_trx_id was accepted")
	for _, name := range []string{"lost writes", "contract violations", "uncertain requests", "uncertain_pct<=1%"} {
		assert.Empty(t, cases[name].Failures, name)
	}
}
