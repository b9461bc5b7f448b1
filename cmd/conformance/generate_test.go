package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// TestGenerate runs the generated mode through the command line: against
// the embedded reference it passes and writes its reports; against a
// faulty server it exits 1 with the seed and a reproduction.
func TestGenerate(t *testing.T) {
	t.Run("embedded reference passes", func(t *testing.T) {
		dir := t.TempDir()
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"generate", "--examples", "6", "--seed", "3", "--report-dir", dir}, noEnv, &out, &errOut)
		require.Equal(t, exitPass, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		assert.Contains(t, out.String(), "15 properties: 15 passed")
		data, err := os.ReadFile(filepath.Join(dir, generative.SummaryFile))
		require.NoError(t, err)
		var sum generative.Result
		require.NoError(t, json.Unmarshal(data, &sum))
		assert.Equal(t, uint64(3), sum.Seed)
		assert.Len(t, sum.Properties, 15)
		assert.FileExists(t, filepath.Join(dir, generative.JUnitFile))
	})
	t.Run("a faulty target fails with a reproduction", func(t *testing.T) {
		url := faultyReference(t, reference.FaultNoShiftCodeLimit)
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"--generate", "--target", url, "--profile", writeFile(t, referenceProfile(t)),
			"--examples", "100", "--seed", "5", "--only", "createPayment: requests that break"}, noEnv, &out, &errOut)
		require.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		assert.Contains(t, out.String(), "shift_code of 51 multi-byte characters")
		assert.Contains(t, out.String(), "curl -sS -X POST")
		assert.Contains(t, out.String(), "conformance generate --target "+url+" --profile ")
		assert.Contains(t, out.String(), " --seed 5 --only 'createPayment: requests that break the schema in one place'")
	})
	t.Run("usage errors exit 2", func(t *testing.T) {
		for _, args := range [][]string{
			{"generate", "--examples", "0"},
			{"generate", "--target", "http://127.0.0.1:1"},
			{"generate", "extra"},
		} {
			var out, errOut bytes.Buffer
			assert.Equal(t, exitUsage, run(context.Background(), args, noEnv, &out, &errOut), "%q", args)
		}
	})
}

// TestGeneratePreflight: generate checks its target first, as the suite
// does. Nothing listening, or credentials the target refuses, is exit 2 at
// once (one preflight request, no property run, nothing waited for) with
// the transport's own reason or the refusal, not a failed property.
func TestGeneratePreflight(t *testing.T) {
	t.Parallel()
	ref := referenceProfile(t)
	var requests atomic.Int64
	h := httpapitest.Handler(t)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(refusing.Close)
	for _, tc := range []struct {
		name, target, profile, says string
		requests                    *atomic.Int64 // those the target received, when it counts them
	}{
		{"closed port", "http://127.0.0.1:1", ref, "refused the connection", nil},
		{"wrong secret key", refusing.URL, strings.Replace(ref, "sk-nusantara-7f3a9c", "sk-wrong", 1), "refused the profile's secret_key and main_token with 401", &requests},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"generate", "--target", tc.target, "--profile", writeFile(t, tc.profile)}, noEnv, &out, &errOut)
			assert.Equal(t, exitUsage, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
			assert.Contains(t, errOut.String(), "preflight")
			assert.Contains(t, errOut.String(), tc.says)
			assert.NotContains(t, errOut.String(), "tries", "it did not wait for the target")
			assert.NotContains(t, out.String(), "FAIL")
			if tc.requests != nil {
				assert.Equal(t, int64(1), tc.requests.Load(), "one preflight request, and nothing after it")
			}
		})
	}
}

// TestGeneratedFeatureReproduces: a failure the generated mode finds for a
// fault (a request a schema property broke, a stateful sequence) is
// written as a feature file that `conformance FILE` runs against the
// target: it fails the same way there, and passes against a reference
// without the fault. Run again where the first run spent the funded
// customer's wallet, it is not judged (INCOMPLETE, exit 2), saying what to
// fund or reset, and names no --judges the user did not give.
func TestGeneratedFeatureReproduces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault      reference.Fault
		only, says string
		// spends is set when a run of the feature leaves the funded
		// customer without the funds it needs.
		spends bool
	}{
		{reference.FaultNoShiftCodeLimit, "CreatePayment: requests that break", "the document refuses this request", false},
		// The reset wallet shows at the profile read after the
		// provisioning, the rule of that step cited.
		{reference.FaultReprovisionResetsWallet, "sequences", "provisioning the phone number again changed the wallet (§4.4", true},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			faulty := faultyReference(t, tc.fault)
			profile := writeFile(t, referenceProfile(t))
			dir := t.TempDir()
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"generate", "--target", faulty, "--profile", profile, "--report-dir", dir,
				"--seed", "5", "--only", tc.only}, noEnv, &out, &errOut)
			require.Equal(t, exitFail, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
			feature := filepath.Join(dir, "generated-1.feature")
			require.FileExists(t, feature, out.String())
			assert.Contains(t, out.String(), "run it: conformance --target "+faulty+" --profile "+profile+" "+feature)
			text, err := os.ReadFile(feature)
			require.NoError(t, err)
			t.Logf("%s", text)

			out.Reset()
			errOut.Reset()
			again := faultyReference(t, tc.fault)
			code = run(context.Background(), []string{"--target", again, "--profile", profile, "--format", "progress", feature}, noEnv, &out, &errOut)
			assert.Equal(t, exitFail, code, "the feature fails against the faulty target:\n%s\n%s", out.String(), errOut.String())
			assert.Contains(t, out.String(), tc.says)
			if tc.spends {
				// That run emptied the funded customer's wallet: run again,
				// the feature cannot show the fault, nor its absence.
				out.Reset()
				errOut.Reset()
				code = run(context.Background(), []string{"--target", again, "--profile", profile, "--format", "progress", feature}, noEnv, &out, &errOut)
				assert.Equal(t, exitIncomplete, code, "the feature run again against a spent account is not judged:\n%s\n%s", out.String(), errOut.String())
				assert.Contains(t, out.String(), "the funded customer holds less than the reproduction needs: fund it, or restart the target from its data set")
				assert.NotContains(t, out.String(), "left out with --judges")
			}

			out.Reset()
			errOut.Reset()
			code = run(context.Background(), []string{"--target", faultyReference(t), "--profile", profile, "--format", "progress", feature}, noEnv, &out, &errOut)
			assert.Equal(t, exitPass, code, "and passes against the reference:\n%s\n%s", out.String(), errOut.String())
			assert.Contains(t, out.String(), "RESULT: PASS: 1 passed")
		})
	}
}
