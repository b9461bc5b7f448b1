package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestATargetThatKeepsThrottling: the suite and the generated mode wait
// out a target that throttles every request up to --max-throttle-wait,
// then stop: exit 2 (a target that cannot be tested), never 1. A negative
// --rate or a bound that is not positive is a usage error.
func TestATargetThatKeepsThrottling(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)
	profile := writeFile(t, referenceProfile(t))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"suite", []string{"--target", srv.URL, "--profile", profile, "--no-preflight", "--tags", "@payment-methods", "--format", "progress",
			"--max-throttle-wait", "1500ms", "--rate", "50"}, "RESULT: STOPPED"},
		{"generated mode", []string{"generate", "--target", srv.URL, "--profile", profile, "--no-preflight", "--max-throttle-wait", "1500ms"},
			"the target kept throttling"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := run(context.Background(), tc.args, noEnv, &out, &errOut)
			assert.Equal(t, exitUsage, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
			assert.Contains(t, out.String()+errOut.String(), tc.want)
		})
	}
	for _, args := range [][]string{{"--rate", "-1"}, {"--max-throttle-wait", "0s"}, {"generate", "--rate", "-5"}} {
		var out, errOut bytes.Buffer
		assert.Equal(t, exitUsage, run(context.Background(), args, noEnv, &out, &errOut), "%q", args)
		assert.Contains(t, errOut.String(), "--max-throttle-wait must be positive", "%q", args)
	}
}
