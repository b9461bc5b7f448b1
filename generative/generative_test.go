package generative_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/verdict"
)

func run(tb testing.TB, url string, examples int, only string) generative.Result {
	tb.Helper()
	res, err := generative.Run(context.Background(), generative.Options{
		Profile:  profiles.Reference(url),
		Examples: examples,
		Duration: 2 * time.Minute,
		Seed:     1,
		Only:     only,
	})
	require.NoError(tb, err)
	return res
}

// TestReferencePasses runs the generated mode against the reference: every
// property passes.
func TestReferencePasses(t *testing.T) {
	srv := httpapitest.NewServer(t)
	res := run(t, srv.URL, 30, "")
	t.Logf("%d requests in %.1fs", res.Requests, res.Seconds)
	for _, p := range res.Properties {
		if p.Status != verdict.StatusPassed {
			t.Errorf("%s: %s\n%s", p.Name(), p.Failure, p.Reproduction)
		}
		for _, w := range p.Warnings {
			t.Logf("%s: %s", p.Name(), strings.TrimSpace(w.String()))
		}
	}
}

// refusalsSayTrue wraps h so that every refusal (4xx) claims status true:
// a departure from a reading, not from the document's letter.
func refusalsSayTrue(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if rec.Code/100 == 4 {
			body = bytes.Replace(body, []byte(`"status":false`), []byte(`"status":true`), 1)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

// TestReadingsAreWarnings proves the grading: a server that departs only
// from a reading passes with a warning naming it, and fails a strict run.
func TestReadingsAreWarnings(t *testing.T) {
	ref := httpapitest.NewServer(t)
	srv := httptest.NewServer(refusalsSayTrue(ref.Config.Handler))
	t.Cleanup(srv.Close)
	for _, strict := range []bool{false, true} {
		res, err := generative.Run(context.Background(), generative.Options{
			Profile: profiles.Reference(srv.URL), Examples: 10, Seed: 2, Strict: strict,
			Only: "provisionAccount: requests that break", ShrinkTime: 2 * time.Second,
		})
		require.NoError(t, err)
		require.Len(t, res.Properties, 1)
		p := res.Properties[0]
		if strict {
			assert.Equal(t, verdict.StatusFailed, p.Status)
			assert.Contains(t, p.Failure, generative.ReadingRefusalShape.ID)
			continue
		}
		assert.Equal(t, verdict.StatusPassed, p.Status, p.Failure)
		require.NotEmpty(t, p.Warnings)
		assert.Equal(t, generative.ReadingRefusalShape.ID, p.Warnings[0].Reading)
		assert.Equal(t, 1, res.Warned())
	}
}
