package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/nginxtest"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// TestIncompleteBehindAThrottlingGateway: behind a real nginx throttling
// with its default 503 page (skipped, saying why, without nginx), a run
// whose answers are mostly the gateway's is INCOMPLETE: not errFailed (the
// API did nothing wrong) but an error main exits 2 with, saying which
// gateway answered and what to change; the report is written and printed
// all the same.
func TestIncompleteBehindAThrottlingGateway(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t)
	g := nginxtest.Start(t, nginxtest.Config{Upstream: srv.URL, Rate: 5, Burst: 5})
	dir := t.TempDir()
	out, stderr, err := runCLI(t, "--target", g.URL, "--scenario", "create", "--rate", "100", "--duration", "2s", "--quiet", "--out", dir)
	require.Error(t, err, out+stderr)
	assert.True(t, errors.Is(err, errIncomplete), "%v", err)
	assert.False(t, errors.Is(err, errFailed), "not a failure of the API")
	assert.Regexp(t, `^INCOMPLETE: a gateway answered [0-9]+ of [0-9]+ requests, not the API: 503 Service Temporarily Unavailable \(Server: nginx/[0-9.]+\): `+
		`throttling without Retry-After\? lower --rate, or have the gateway answer 429 with Retry-After`, err.Error())
	lines := strings.SplitN(out, "\n", 3)
	require.Len(t, lines, 3, out)
	assert.True(t, strings.HasPrefix(lines[1], "INCOMPLETE: a gateway answered "), out)
	assert.Contains(t, out, "Reports in "+dir, "the report is written")
}
