package steps

import (
	"fmt"
	"slices"
	"strings"
)

// A check either follows from the document's words (a stated field, type,
// status, message, rule or limit) or rests on a reading: an interpretation of
// a sentence. A failed document check fails its scenario; a failed reading is
// a warning, unless the run is strict.

// Reading is one interpretation of the API document a check rests on. The
// readings variable below is the one place readings are written;
// docs/conformance-readings.md is generated from it.
type Reading struct {
	// ID names the reading in reports; it never changes once published.
	ID string
	// Sentence is the document's sentence, quoted with its section.
	Sentence string
	// Text is how the suite reads the sentence.
	Text string
}

// Warning is a reading a scenario's server did not follow.
type Warning struct {
	Reading  string `json:"reading"`
	Sentence string `json:"sentence"`
	Detail   string `json:"detail"`
}

func (w Warning) String() string {
	return fmt.Sprintf("WARNING (reading %s): %s\n  reads: %s", w.Reading, strings.TrimSpace(w.Detail), w.Sentence)
}

// readings is every reading the suite makes, in the order the document
// presents its sentences.
var readings = []Reading{
	{
		ID:       "coin-value-rounds-down",
		Sentence: "§2.3 coin.available_value (integer): \"Rupiah value of the coins (coins / 2).\" §8: \"2 coins = 1 rupiah\".",
		Text:     "The value of an odd number of coins is rounded down: the field is an integer, so an odd coin is worth nothing. Document-level: the value is coins / 2, rounded either way.",
	},
}

// readingByID returns the reading of id; an unknown id is a programming error.
func readingByID(id string) Reading {
	r, ok := lookupReading(id)
	if !ok {
		panic("steps: unknown reading " + id)
	}
	return r
}

// lookupReading returns the reading of id, if the registry has it.
func lookupReading(id string) (Reading, bool) {
	for _, r := range readings {
		if r.ID == id {
			return r, true
		}
	}
	return Reading{}, false
}

// applied notes that the scenario applied the reading r.
func (s *scenario) applied(r Reading) {
	if !slices.Contains(s.readings, r.ID) {
		s.readings = append(s.readings, r.ID)
	}
}

// reading grades the outcome of a check that rests on the reading r: nil
// passes; a failure becomes a warning of the scenario, or, in a strict run,
// the scenario's failure.
func (s *scenario) reading(r Reading, err error) error {
	s.applied(r)
	if err == nil {
		return nil
	}
	if s.h.strict {
		return fmt.Errorf("reading %s (strict run): %w", r.ID, err)
	}
	s.warnings = append(s.warnings, Warning{Reading: r.ID, Sentence: r.Sentence, Detail: err.Error()})
	return nil
}
