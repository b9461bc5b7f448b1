package probe

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/profiles"
)

// Defaults of Options. Against the embedded reference a run with them sends
// 443 requests in about a tenth of a second (docs/performance.md,
// "Concurrency probe"); Duration keeps a slow target's run short. Twenty
// waves: a first wave of eight found the reference's racy-duplicate-check
// in 22 to 29 runs of 40 on a busy 2-core machine, so at one wave in two
// twenty miss it about once in a million runs.
const (
	DefaultWaves          = 20
	DefaultWaveSize       = 8
	DefaultDuration       = 20 * time.Second
	DefaultRequestTimeout = 10 * time.Second
	// MaxWaveSize bounds WaveSize: a probe is a check, not a load test.
	MaxWaveSize = 64
)

// Options configure one probe run.
type Options struct {
	// Profile holds the target's base URL and credentials. Required.
	Profile *profiles.Profile
	// ProfilePath is the file Profile was read from, which a reproduction
	// names as where its secrets come from; "" is the embedded reference's
	// profile (profiles/reference.yaml).
	ProfilePath string
	// Conn are the transport options (TLS, -H): the HTTP client is built
	// from them (unless HTTPClient is set), and a reproduction's curl lines
	// repeat them (the values of -H as environment variables). Give them
	// with HTTPClient too, for the reproductions.
	Conn transport.Options
	// HTTPClient, when set, sends the requests instead of the client the
	// probe builds from Conn, which keeps a wave's connections open between
	// waves and writes each request as its body is read (so that a wave's
	// requests can be held at their last byte and meet the target at
	// once). A client of Conn.Transport() works, its waves arriving a
	// little less together; leave it nil unless a test needs its own.
	HTTPClient *http.Client
	// Gate, when set, is the throttle gate the requests go through: the
	// combined run's, so that the target's rate limit is learned once and
	// MaxThrottleWait bounds the whole run (Result.Throttling is then the
	// gate's, all judges together). Nil: a gate of Rate and
	// MaxThrottleWait for this run alone.
	Gate *throttle.Gate
	// RequestTimeout bounds each request (default DefaultRequestTimeout).
	RequestTimeout time.Duration
	// Rate paces the requests (requests a second; 0: none), to stay under a
	// target's known rate limit. A wave paced this way arrives spread out,
	// and the probe sees fewer races.
	Rate float64
	// MaxThrottleWait bounds the time the run holds off for a target that
	// throttles it (default throttle.DefaultMaxWait); past it the run
	// stops and the cases not run to their end are not judged.
	MaxThrottleWait time.Duration
	// Seed makes a run's draws repeatable; 0 picks one.
	Seed uint64
	// Waves is the number of waves of each case (default DefaultWaves).
	Waves int
	// WaveSize is the number of payments a wave sends at once (default
	// DefaultWaveSize, at most MaxWaveSize, at least 2).
	WaveSize int
	// Duration bounds the run: no wave starts after it (default
	// DefaultDuration). A case cut short says so (CaseResult.Cut).
	Duration time.Duration
	// Strict turns warnings (a reading departed from) into failures.
	Strict bool
	// Only, when set, runs only the cases it selects (verdict.Selects: a
	// name that contains one of its |-separated parts).
	Only string
	// Done, when set, receives each case's result as it ends.
	Done func(CaseResult)
	// Earlier are payments created before the probe ran (the combined
	// run's scenarios), in the order they were answered: the case
	// caseFound looks them up beside the probe's own.
	Earlier []Known
}

// ErrUsage marks a run that could not start because of its options.
var ErrUsage = errors.New("probe: usage")

// withDefaults checks o and fills in its defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Profile == nil {
		return o, fmt.Errorf("%w: a profile is required", ErrUsage)
	}
	if err := o.Profile.Validate(); err != nil {
		return o, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if o.WaveSize == 1 || o.WaveSize > MaxWaveSize || o.WaveSize < 0 {
		return o, fmt.Errorf("%w: a wave sends 2 to %d payments at once, not %d", ErrUsage, MaxWaveSize, o.WaveSize)
	}
	if o.Waves < 0 || o.Duration < 0 || o.RequestTimeout < 0 {
		return o, fmt.Errorf("%w: waves, duration and request timeout cannot be negative", ErrUsage)
	}
	if o.Waves == 0 {
		o.Waves = DefaultWaves
	}
	if o.WaveSize == 0 {
		o.WaveSize = DefaultWaveSize
	}
	if o.Duration == 0 {
		o.Duration = DefaultDuration
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	return o, nil
}
