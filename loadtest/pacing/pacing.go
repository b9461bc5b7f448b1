package pacing

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"gopkg.in/yaml.v3"
)

// Pacing shapes: constant, linear ramp and sine, each one of vegeta's pacers.
const (
	Constant = "constant"
	Linear   = "linear"
	Sine     = "sine"
	// Stages runs a list of load profiles one after the other, as
	// k6's stages do.
	Stages = "stages"
)

// LoadProfile is the rate, duration and pacing of a run. It is what
// --rate/--duration/--pacing set, or what a small YAML file holds:
//
//	pacing: linear    # constant | linear | sine
//	rate: 50          # constant: the rate; linear: the start; sine: the mean
//	end_rate: 400     # linear only: the rate at the end of the run
//	amplitude: 40     # sine only: the swing around the mean
//	period: 10s       # sine only
//	start_at: mean-up # sine only: mean-up | peak | mean-down | trough
//	duration: 30s
//
// or, as k6's stages, several such profiles run one after the other (see
// profiles/load/stages.yaml for a commented example):
//
//	stages:
//	  - {rate: 20, duration: 10s}                            # warm up
//	  - {pacing: linear, rate: 20, end_rate: 200, duration: 30s} # ramp
//	  - {rate: 200, duration: 1m}                            # hold
//
// Rates are per second: 0, or between minRate and maxRate. A rate of 0
// means "as fast as the generator can", which is bounded by the worker and
// connection caps; it is accepted only with constant pacing. Rates count
// requests, in every scenario: an idempotency run at 200/s with waves of 8
// sends 25 waves a second.
//
// The flag and help tags are cmd/loadtest's flags (record.Settings).
type LoadProfile struct {
	Pacing    string        `yaml:"pacing" json:"pacing" flag:"pacing" help:"pacing: constant, linear or sine (several stages: --load-profile)"`
	Rate      float64       `yaml:"rate" json:"rate" flag:"rate" help:"the rate in requests per second, in every scenario (idempotency: rate ÷ wave size waves a second); vegeta's 100/1s or 6000/1m also work; 0: max rate; linear: start rate; sine: mean"`
	EndRate   float64       `yaml:"end_rate,omitempty" json:"end_rate,omitempty" flag:"end-rate" help:"linear pacing: the rate at the end (requests per second, or 100/1s)"`
	Amplitude float64       `yaml:"amplitude,omitempty" json:"amplitude,omitempty" flag:"amplitude" help:"sine pacing: the amplitude, a rate (requests per second, or 100/1s)"`
	Period    time.Duration `yaml:"period,omitempty" json:"period,omitempty" flag:"period" help:"sine pacing: period"`
	StartAt   string        `yaml:"start_at,omitempty" json:"start_at,omitempty" flag:"start-at" help:"sine pacing: mean-up, peak, mean-down or trough"`
	Duration  time.Duration `yaml:"duration" json:"duration" flag:"duration" help:"duration of the attack"`
	// Stages, with pacing "stages", are run one after the other; Duration
	// is then their sum.
	Stages []LoadProfile `yaml:"stages,omitempty" json:"stages,omitempty"`
}

// maxDuration bounds every run.
const maxDuration = 24 * time.Hour

// maxRate bounds every rate of a load profile (per second), far above what
// one generator achieves; larger rates overflow vegeta's pacers. minRate is
// the smallest rate above 0 that rateOf can represent: below it a pacer
// would read the rate as 0, that is, as unbounded.
const (
	maxRate = 1_000_000
	minRate = 0.001
)

// parseLoadProfile decodes a load profile from YAML; unknown keys are an
// error. Missing pacing means constant.
func parseLoadProfile(data []byte) (LoadProfile, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var lp LoadProfile
	if err := dec.Decode(&lp); err != nil {
		return LoadProfile{}, fmt.Errorf("load profile: %w", err)
	}
	lp.Normalize()
	return lp, lp.Validate()
}

// Normalize gives a profile decoded from a file what it leaves out: a
// profile with stages (or none) and no pacing paces stages, their
// duration summed; a stage or a profile without pacing is constant; a
// profile that is not sine keeps no period or start.
func (lp *LoadProfile) Normalize() {
	if lp.Stages != nil { // "stages: []" too, which validation refuses
		if lp.Pacing == "" {
			lp.Pacing = Stages
		}
		if lp.Duration == 0 {
			for i := range lp.Stages {
				if lp.Stages[i].Duration > 0 && lp.Stages[i].Duration <= maxDuration {
					lp.Duration += lp.Stages[i].Duration
				}
			}
		}
	}
	for i := range lp.Stages {
		if lp.Stages[i].Pacing == "" {
			lp.Stages[i].Pacing = Constant
		}
	}
	if lp.Pacing == "" {
		lp.Pacing = Constant
	}
	if lp.Pacing != Sine {
		lp.Period, lp.StartAt = 0, ""
	}
}

// Validate reports the first inconsistency of lp.
func (lp LoadProfile) Validate() error {
	if lp.Pacing == Stages {
		return lp.validateStages()
	}
	if len(lp.Stages) > 0 {
		return fmt.Errorf("load profile: stages need pacing %q (or no pacing), not %q", Stages, lp.Pacing)
	}
	if lp.Duration <= 0 || lp.Duration > maxDuration {
		return fmt.Errorf("load profile: duration must be in (0, %s], got %s", maxDuration, lp.Duration)
	}
	bad := func(x float64) bool { return math.IsNaN(x) || x < 0 || x > maxRate || (x > 0 && x < minRate) }
	if bad(lp.Rate) || bad(lp.EndRate) || bad(lp.Amplitude) {
		return fmt.Errorf("load profile: rates must not be negative, and be 0 or between %g and %d per second", minRate, maxRate)
	}
	switch lp.Pacing {
	case Constant:
	case Linear:
		if lp.Rate == 0 && lp.EndRate == 0 {
			return errors.New("load profile: linear pacing needs rate or end_rate above 0")
		}
	case Sine:
		if lp.Rate <= 0 {
			return errors.New("load profile: sine pacing needs a mean rate above 0")
		}
		if lp.Amplitude > lp.Rate {
			return errors.New("load profile: sine amplitude must not exceed the mean rate")
		}
		if lp.Period <= 0 {
			return errors.New("load profile: sine pacing needs a period above 0")
		}
		if _, err := sineOffset(lp.StartAt); err != nil {
			return err
		}
	default:
		return fmt.Errorf("load profile: unknown pacing %q (want constant, linear, sine or stages)", lp.Pacing)
	}
	return nil
}

// maxStages bounds the stages of a load profile.
const maxStages = 100

func (lp LoadProfile) validateStages() error {
	if len(lp.Stages) == 0 || len(lp.Stages) > maxStages {
		return fmt.Errorf("load profile: stages pacing needs 1 to %d stages", maxStages)
	}
	if lp.Rate != 0 || lp.EndRate != 0 || lp.Amplitude != 0 || lp.Period != 0 || lp.StartAt != "" {
		return errors.New("load profile: with stages, rates and shapes belong to the stages")
	}
	var sum time.Duration
	for i, st := range lp.Stages {
		if st.Pacing == Stages || len(st.Stages) > 0 {
			return fmt.Errorf("load profile: stage %d: stages do not nest", i+1)
		}
		if err := st.Validate(); err != nil {
			return fmt.Errorf("stage %d: %w", i+1, err)
		}
		if st.Unbounded() {
			return fmt.Errorf("load profile: stage %d: a stage needs a rate above 0", i+1)
		}
		sum += st.Duration
		if sum > maxDuration {
			return fmt.Errorf("load profile: the stages last more than %s", maxDuration)
		}
	}
	if lp.Duration != sum {
		return fmt.Errorf("load profile: duration %s is not the sum of the stages, %s", lp.Duration, sum)
	}
	return nil
}

// Unbounded reports whether lp asks for the highest rate the generator can
// achieve (constant pacing with rate 0).
func (lp LoadProfile) Unbounded() bool { return lp.Pacing == Constant && lp.Rate == 0 }

// String describes lp in one line.
func (lp LoadProfile) String() string {
	switch lp.Pacing {
	case Linear:
		return fmt.Sprintf("linear %g→%g/s for %s", lp.Rate, lp.EndRate, lp.Duration)
	case Sine:
		return fmt.Sprintf("sine %g±%g/s period %s for %s", lp.Rate, lp.Amplitude, lp.Period, lp.Duration)
	case Stages:
		parts := make([]string, len(lp.Stages))
		for i, st := range lp.Stages {
			parts[i] = st.String()
		}
		return fmt.Sprintf("%d stages for %s: %s", len(lp.Stages), lp.Duration, strings.Join(parts, ", then "))
	}
	if lp.Unbounded() {
		return fmt.Sprintf("max rate for %s", lp.Duration)
	}
	return fmt.Sprintf("constant %g/s for %s", lp.Rate, lp.Duration)
}

// ParseRate reads a rate in requests per second: a number ("100", "0.5")
// or vegeta's frequency per duration ("100/1s", "100/s", "6000/1m",
// "1/500ms"). 0 means as fast as the generator can.
func ParseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	freq, per, found := strings.Cut(s, "/")
	f, err := strconv.ParseFloat(strings.TrimSpace(freq), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, fmt.Errorf("rate %q: want requests per second (100) or requests per duration (100/1s, 6000/1m)", s)
	}
	if !found {
		return f, nil
	}
	per = strings.TrimSpace(per)
	if per != "" && (per[0] < '0' || per[0] > '9') && per[0] != '.' {
		per = "1" + per // vegeta's "100/s"
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("rate %q: %q is not a duration above 0 such as 1s or 1m", s, per)
	}
	r := f / d.Seconds()
	if math.IsInf(r, 0) {
		return 0, fmt.Errorf("rate %q is too large", s)
	}
	return r, nil
}

// Expected is the number of requests lp schedules, worked out from its
// mean rate (0 for a max-rate run, which has no schedule).
func (lp LoadProfile) Expected() float64 {
	switch lp.Pacing {
	case Linear:
		return (lp.Rate + lp.EndRate) / 2 * lp.Duration.Seconds()
	case Stages:
		n := 0.0
		for _, st := range lp.Stages {
			n += st.Expected()
		}
		return n
	}
	return lp.Rate * lp.Duration.Seconds()
}

// Divided returns lp with every rate divided by n: the schedule of hits
// that send n requests each (on average), so that lp's rates stay
// requests per second.
func (lp LoadProfile) Divided(n float64) LoadProfile {
	if n <= 1 {
		return lp
	}
	lp.Rate /= n
	lp.EndRate /= n
	lp.Amplitude /= n
	if len(lp.Stages) > 0 {
		stages := make([]LoadProfile, len(lp.Stages))
		for i, st := range lp.Stages {
			stages[i] = st.Divided(n)
		}
		lp.Stages = stages
	}
	return lp
}

// rateOf converts a rate per second into a vegeta.Rate with nanosecond
// resolution, so that fractional rates are kept.
func rateOf(perSecond float64) vegeta.Rate {
	if perSecond <= 0 {
		return vegeta.Rate{}
	}
	// Freq hits per Per: keep 6 significant decimals of the rate.
	const scale = 1000
	return vegeta.Rate{Freq: int(math.Round(perSecond * scale)), Per: scale * time.Second}
}

func sineOffset(s string) (float64, error) {
	switch strings.ToLower(s) {
	case "", "mean-up":
		return vegeta.MeanUp, nil
	case "peak":
		return vegeta.Peak, nil
	case "mean-down":
		return vegeta.MeanDown, nil
	case "trough":
		return vegeta.Trough, nil
	}
	return 0, fmt.Errorf("load profile: unknown start_at %q (want mean-up, peak, mean-down or trough)", s)
}

// Pacer returns the vegeta pacer of lp.
func (lp LoadProfile) Pacer() (vegeta.Pacer, error) {
	if err := lp.Validate(); err != nil {
		return nil, err
	}
	switch lp.Pacing {
	case Stages:
		sp := &stagedPacer{}
		var at time.Duration
		for _, st := range lp.Stages {
			p, err := st.Pacer()
			if err != nil {
				return nil, err
			}
			sp.stages = append(sp.stages, stage{pacer: p, start: at, end: at + st.Duration})
			at += st.Duration
		}
		return sp, nil
	case Linear:
		slope := (lp.EndRate - lp.Rate) / lp.Duration.Seconds()
		start := lp.Rate
		if start == 0 {
			// vegeta treats a zero start as "infinite"; start just above it.
			start = 0.001
		}
		return vegeta.LinearPacer{StartAt: rateOf(start), Slope: slope}, nil
	case Sine:
		off, _ := sineOffset(lp.StartAt)
		return vegeta.SinePacer{Period: lp.Period, Mean: rateOf(lp.Rate), Amp: rateOf(lp.Amplitude), StartAt: off}, nil
	}
	return rateOf(lp.Rate), nil
}

// stage is one stage of a staged pacer.
type stage struct {
	pacer      vegeta.Pacer
	start, end time.Duration
	offset     uint64 // hits before the stage, known once the schedule reached it
	reached    bool
}

// stagedPacer runs the pacers of its stages one after the other. Each stage
// starts with a hit at its start and paces its own hits from there. It is
// meant for one schedule walked in order (it remembers where each stage's
// hits began), which is how the engine uses a pacer.
type stagedPacer struct {
	stages []stage
}

// Pace implements vegeta.Pacer.
func (p *stagedPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	for i := range p.stages {
		st := &p.stages[i]
		if elapsed >= st.end {
			continue
		}
		if !st.reached {
			st.offset, st.reached = hits, true
		}
		wait, stop := st.pacer.Pace(max(0, elapsed-st.start), hits-min(hits, st.offset))
		if !stop && elapsed+wait < st.end {
			return wait, false
		}
		if i+1 == len(p.stages) {
			return 0, true
		}
		// The stage's next hit would fall after its end: the next hit is
		// the next stage's first, at its start.
		next := &p.stages[i+1]
		next.offset, next.reached = hits, true
		return st.end - elapsed, false
	}
	return 0, true
}

// Rate implements vegeta.Pacer.
func (p *stagedPacer) Rate(elapsed time.Duration) float64 {
	for _, st := range p.stages {
		if elapsed < st.end {
			return st.pacer.Rate(max(0, elapsed-st.start))
		}
	}
	return 0
}

// Schedule walks a pacer's intended send times. Calling Pace at the previous
// hit's due time (rather than at the wall clock) yields each hit's due time
// even when the generator runs behind, which is what coordinated-omission
// correction needs.
type Schedule struct {
	Pacer vegeta.Pacer
	due   time.Duration
	n     uint64
}

// Next returns the offset from the start at which hit n is due, and false
// when the pacer says stop.
func (s *Schedule) Next() (time.Duration, bool) {
	wait, stop := s.Pacer.Pace(s.due, s.n)
	if stop {
		return 0, false
	}
	if wait > 0 {
		s.due += wait
	}
	s.n++
	return s.due, true
}

// Remaining counts the hits s still schedules within d, walking s to its
// end (one Pace call per hit). The schedule must end: not a max-rate one.
func (s *Schedule) Remaining(d time.Duration) int64 {
	var n int64
	for {
		due, ok := s.Next()
		if !ok || due > d {
			return n
		}
		n++
	}
}
