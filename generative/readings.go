package generative

import "github.com/partnercommerce/conformance/internal/contract"

// The readings the generated mode makes (written in internal/contract). A
// check that rests on one of them is a warning when it fails (a failure in a
// strict run); every other check follows from the document's words.
var (
	// ReadingRefusalShape: a refused request says so in its body.
	ReadingRefusalShape = contract.MustReading("generated-refusal-status-false")
	// readingTypesRefused: a request outside the request schema is refused.
	readingTypesRefused = contract.MustReading("generated-types-refused")
	// ReadingCoinsInFull: coins cover as much of the remainder as they can.
	ReadingCoinsInFull = contract.MustReading("generated-coins-cover-remainder")
	// readingRecordAmounts: a status record shows the product and amounts
	// of the payment's creation. It is the suite's reading, which the model
	// grades as the suite's step does.
	readingRecordAmounts = contract.MustReading("status-record-amounts")
	// readingCoinValueRoundsDown: an odd coin is worth nothing (the
	// suite's reading, graded as its step grades it).
	readingCoinValueRoundsDown = contract.MustReading("coin-value-rounds-down")
)
