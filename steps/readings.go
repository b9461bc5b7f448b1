package steps

import (
	"fmt"
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
var readings = []Reading{}

// readingByID returns the reading of id; an unknown id is a programming error.
func readingByID(id string) Reading {
	for _, r := range readings {
		if r.ID == id {
			return r
		}
	}
	panic("steps: unknown reading " + id)
}

// reading grades the outcome of a check that rests on the reading r: nil
// passes; a failure becomes a warning of the scenario, or, in a strict run,
// the scenario's failure.
func (s *scenario) reading(r Reading, err error) error {
	if err == nil {
		return nil
	}
	if s.h.strict {
		return fmt.Errorf("reading %s (strict run): %w", r.ID, err)
	}
	s.warnings = append(s.warnings, Warning{Reading: r.ID, Sentence: r.Sentence, Detail: err.Error()})
	return nil
}
