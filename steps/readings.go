package steps

import (
	"fmt"
	"slices"

	"github.com/partnercommerce/conformance/internal/contract"
)

// A check either follows from the document's words or rests on a reading
// (contract.Readings, the one registry); a failed reading is a warning of
// the scenario, unless the run is strict.

// applied notes that the scenario applied the reading r.
func (s *scenario) applied(r contract.Reading) {
	if !slices.Contains(s.readings, r.ID) {
		s.readings = append(s.readings, r.ID)
	}
}

// reading grades the outcome of a check that rests on the reading r: nil
// passes; a failure becomes a warning of the scenario, or, in a strict run,
// the scenario's failure.
func (s *scenario) reading(r contract.Reading, err error) error {
	s.applied(r)
	if err == nil {
		return nil
	}
	if s.h.strict {
		return fmt.Errorf("reading %s (strict run): %w", r.ID, err)
	}
	s.warnings = append(s.warnings, r.Warn(err.Error()))
	return nil
}

// gradedBy grades failed, the failure of a contract check that returned the
// reading r it rests on: by that reading, or, when the check rests on the
// document alone (r has no id), as the scenario's failure.
func (s *scenario) gradedBy(r contract.Reading, failed error) error {
	if r.ID == "" {
		return failed
	}
	return s.reading(r, failed)
}
