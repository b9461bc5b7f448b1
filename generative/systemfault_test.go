package generative_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/variants"
	"github.com/partnercommerce/conformance/verdict"
)

// systemFaults serves the reference, but answers every fourth profile read
// that would be 200 with a 500 carrying profileMessage, and every fourth
// catalog sync that would be 200, after the first 30 (the run's setup),
// with a 500 "Terjadi kesalahan sistem.".
func systemFaults(t *testing.T, profileMessage string) string {
	t.Helper()
	ref, err := variants.Variant{}.Handler() // the reference, as it is
	require.NoError(t, err)
	var profileReads, syncs atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		ref.ServeHTTP(rec, r)
		fault := ""
		switch {
		case rec.Code != http.StatusOK:
		case r.URL.Path == "/client/v2/customer/profile" && profileReads.Add(1)%4 == 0:
			fault = profileMessage
		case r.URL.Path == "/client/v2/product/sync" && syncs.Add(1) > 30 && syncs.Load()%4 == 0:
			fault = "Terjadi kesalahan sistem."
		}
		w.Header().Set("Content-Type", "application/json")
		if fault == "" {
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"status":false,"message":"` + fault + `"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDocumentedSystemFaultsAreAnswers: section 7 gives the profile a 500
// with the message "Profil belum dapat dimuat. Silakan coba lagi nanti."
// and the product endpoints a 500 whose message follows the server error.
// Answered to valid requests, they are answers: the properties of valid
// requests and the sequences pass. (A request that departs from the schema
// probes bad input: a 5xx there still fails.) A profile's 500 with another
// message is a server fault, and fails.
func TestDocumentedSystemFaultsAreAnswers(t *testing.T) {
	run := func(profileMessage, only string) generative.Result {
		res, err := generative.Run(context.Background(), generative.Options{
			Profile: profiles.Reference(systemFaults(t, profileMessage)), Seed: 1, Examples: 30, Steps: 20,
			Duration: time.Minute, ShrinkTime: 2 * time.Second, Only: only,
		})
		require.NoError(t, err)
		return res
	}
	for _, only := range []string{"valid requests", "sequences"} {
		for _, p := range run(contract.MsgProfileUnloaded, only).Properties {
			assert.Equal(t, verdict.StatusPassed, p.Status, "%s: %s\n%s", p.Name(), p.Failure, p.Reproduction)
		}
	}
	failed := 0
	for _, p := range run("Terjadi kesalahan sistem.", "").Properties {
		if p.Status == verdict.StatusFailed {
			failed++
			assert.Contains(t, p.Failure, "a server fault", p.Name())
		}
	}
	assert.Positive(t, failed, "a profile's 500 with another message than the row's")
}
