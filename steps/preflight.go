package steps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/profiles"
)

// ErrTarget marks a run that stopped because the target cannot be tested:
// it does not answer, does not answer JSON, refuses the profile's
// credentials, or stopped answering during the run.
var ErrTarget = errors.New("the target cannot be tested")

// preflightPath is the endpoint preflight calls: the profile of the account
// that owns the token (§4.3), which needs the secret key and a bearer token
// (§5) and changes nothing.
const preflightPath = "/client/v2/customer/profile"

// Preflight checks, with one request, that the target of prof can be tested
// at all: it answers, it answers JSON with status and message (§1: "Every
// response is JSON and carries status (boolean) and message (string)"), and
// it does not refuse the profile's secret key and main token with 401 (§5:
// "Failures return HTTP 401"). It asserts nothing else: any other status,
// such as the profile's 500, passes. The error wraps ErrTarget and is one
// sentence a newcomer can act on; a gateway's refusal or error page
// (contract.GatewayAnswer: a proxy's 400 for a missing client certificate,
// its 403 for a missing header) is said as the gateway's, with its title
// and what to change, in the load tester's words.
func Preflight(ctx context.Context, prof *profiles.Profile, hc *http.Client, timeout time.Duration) error {
	if hc == nil {
		hc = http.DefaultClient
	}
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	url := strings.TrimRight(prof.BaseURL, "/") + preflightPath
	var a preflightAnswer
	for try := 1; ; try++ {
		var err error
		if a, err = preflightOnce(ctx, hc, prof, url, timeout); err != nil {
			return err
		}
		if !contract.Throttled(a.status, a.header) {
			break
		}
		// A throttled answer says the target answers; it is not the
		// answer to the credentials. Wait as it asks, a few times.
		wait, ok := contract.RetryAfter(a.header, time.Now())
		if !ok {
			wait = time.Second
		}
		if try == preflightTries || wait > preflightMaxWait {
			return nil // the run's gate waits for the target
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: preflight: %w", ErrTarget, context.Cause(ctx))
		}
	}
	if g, ok := contract.GatewayAnswer(a.status, a.header, a.body); ok && a.status >= http.StatusBadRequest {
		// A proxy's refusal (a client certificate or a header it wants)
		// or its error page, as the load tester's preflight says it.
		return fmt.Errorf("%w: preflight: GET %s: %w", ErrTarget, url, g)
	}
	env, _, err := contract.Decode(a.body)
	if err != nil {
		return fmt.Errorf("%w: preflight: GET %s answered %d with Content-Type %q and a body that is not a JSON object with status and message (%w): %q; is --target the API's base URL?",
			ErrTarget, url, a.status, a.header.Get("Content-Type"), err, preview(a.body))
	}
	if a.status == http.StatusUnauthorized {
		return fmt.Errorf("%w: preflight: GET %s refused the profile's secret_key and main_token with 401 %q; check both keys of the profile",
			ErrTarget, url, env.Message)
	}
	return nil
}

// AwaitTarget runs the preflight check as target's --wait-for-target asks:
// once, or again and again until it passes or the wait is over, when the
// error is the last reason (see transport.Wait). A TLS handshake that
// failed is explained in words (which CA, which certificate, what to
// change).
func AwaitTarget(ctx context.Context, prof *profiles.Profile, hc *http.Client, timeout time.Duration, target *transport.Options) error {
	err := transport.Wait(ctx, target.WaitForTarget, func(ctx context.Context) error {
		return Preflight(ctx, prof, hc, timeout)
	})
	return target.Explain(err)
}

// The preflight sends its request again after a throttled answer at most
// preflightTries times in all, waiting at most preflightMaxWait each time.
const (
	preflightTries   = 3
	preflightMaxWait = 10 * time.Second
)

// preflightAnswer is what came back to the preflight request.
type preflightAnswer struct {
	status int
	header http.Header
	body   []byte
}

// preflightOnce sends the preflight request once, within timeout, and
// reads its answer.
func preflightOnce(ctx context.Context, hc *http.Client, prof *profiles.Profile, url string, timeout time.Duration) (preflightAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return preflightAnswer{}, fmt.Errorf("%w: preflight: %w", ErrTarget, err)
	}
	req.Header.Set("X-SECRET-KEY", prof.SecretKey)
	req.Header.Set("Authorization", "Bearer "+prof.MainToken)
	resp, err := hc.Do(req)
	if err != nil {
		return preflightAnswer{}, fmt.Errorf("%w: preflight: GET %s: %w", ErrTarget, url, contract.TransportError(err, timeout))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
	if err != nil {
		return preflightAnswer{}, fmt.Errorf("%w: preflight: GET %s: %w", ErrTarget, url, contract.TransportError(err, timeout))
	}
	return preflightAnswer{resp.StatusCode, resp.Header, body}, nil
}

// preview is the start of a body, for a one-line message.
func preview(body []byte) string {
	const n = 80
	if len(body) > n {
		return string(body[:n]) + "…"
	}
	return string(body)
}
