package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundingUpReference serves the reference, except that every profile
// answer shows one more coin, an odd number, valued rounded up: a server
// that departs from the suite only in the reading coin-value-rounds-down.
func roundingUpReference(t *testing.T) string {
	t.Helper()
	ref, err := http.NewRequestWithContext(context.Background(), http.MethodGet, faultyReference(t), nil)
	require.NoError(t, err)
	proxy := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.URL.Scheme, out.URL.Host = ref.URL.Scheme, ref.URL.Host
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var body map[string]any
		dec := json.NewDecoder(resp.Body)
		dec.UseNumber()
		require.NoError(t, dec.Decode(&body))
		if r.URL.Path == "/client/v2/customer/profile" && resp.StatusCode == http.StatusOK {
			coin := body["data"].(map[string]any)["coin"].(map[string]any)
			coins, err := coin["available"].(json.Number).Int64()
			require.NoError(t, err)
			coin["available"], coin["available_value"] = coins+1, (coins+2)/2
		}
		data, err := json.Marshal(body)
		require.NoError(t, err)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(data)
	})
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRunWarningsExit0StrictExits1: a target that departs only from a
// reading passes with a warning (exit 0); --strict makes it fail (exit 1).
func TestRunWarningsExit0StrictExits1(t *testing.T) {
	t.Parallel()
	url := roundingUpReference(t)
	profile := writeFile(t, referenceProfile(t))
	for _, tc := range []struct {
		name  string
		extra []string
		code  int
		line  string
	}{
		{"warnings pass", nil, exitPass, "RESULT: PASS: 1 passed (1 with warnings), 0 failed, 0 skipped"},
		{"strict", []string{"--strict"}, exitFail, "RESULT: FAIL: 0 passed (0 with warnings), 1 failed, 0 skipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			args := append([]string{"--target", url, "--profile", profile, "--format", "progress",
				"--tags", "@limits && @reading:coin-value-rounds-down"}, tc.extra...)
			code := run(context.Background(), args, noEnv, &stdout, &stderr)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			assert.Contains(t, stdout.String(), tc.line)
			if tc.code == exitPass {
				assert.Contains(t, stdout.String(), "WARNING reading coin-value-rounds-down")
			}
		})
	}
}
