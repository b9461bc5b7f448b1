package generative

import "github.com/partnercommerce/conformance/internal/contract"

// The readings the generated mode makes (written in internal/contract). A
// check that rests on one of them is a warning when it fails (a failure in a
// strict run); every other check follows from the document's words.
var (
	// ReadingRefusalShape: a refused request says so in its body.
	ReadingRefusalShape = contract.MustReading("generated-refusal-status-false")
	// ReadingTypesRefused: a request outside the request schema is refused.
	ReadingTypesRefused = contract.MustReading("generated-types-refused")
	// ReadingCoinsInFull: coins cover as much of the remainder as they can.
	ReadingCoinsInFull = contract.MustReading("generated-coins-cover-remainder")
	// ReadingRecordAmounts: a status record shows the product and amounts
	// of the payment's creation. It is the suite's reading, which the model
	// grades as the suite's step does.
	ReadingRecordAmounts = contract.MustReading("status-record-amounts")
	// ReadingCoinValueRoundsDown: an odd coin is worth nothing (the
	// suite's reading, graded as its step grades it).
	ReadingCoinValueRoundsDown = contract.MustReading("coin-value-rounds-down")
)

// Readings lists the readings of the generated mode.
func Readings() []contract.Reading { return contract.GeneratedReadings() }
