package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"

	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

func startTestReference(t *testing.T) string {
	t.Helper()
	srv := httpapitest.NewServer(t)
	return srv.URL
}

func progressSample() loadtest.Progress {
	return loadtest.Progress{Elapsed: 2 * time.Second, Sent: 10, Done: 9, Rate: 5, P50: time.Millisecond, P99: 3 * time.Millisecond}
}

// requireNoFailure requires that nothing of a run (its out, stderr and
// err) failed: it passed, or all that kept it from a pass is a rule that
// needs overlap which its short run never reached (INCOMPLETE, exit 2).
func requireNoFailure(t *testing.T, out, stderr string, err error) {
	t.Helper()
	if err == nil {
		require.Contains(t, out, "PASS", stderr)
		return
	}
	require.ErrorIs(t, err, errIncomplete, out+stderr)
	require.Regexp(t, `^INCOMPLETE: the (wallet rules were|duplicate check was) not exercised`, err.Error(), out+stderr)
	require.Contains(t, out, "\nINCOMPLETE: the ", stderr)
}
