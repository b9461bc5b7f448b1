package generative

import "github.com/partnercommerce/conformance/steps"

// The readings the generated mode makes. A check that rests on one of them
// is a warning when it fails (a failure in a strict run); every other check
// follows from the document's words.
var (
	// ReadingRefusalShape: a refused request says so in its body.
	ReadingRefusalShape = steps.Reading{
		ID:       "generated-refusal-status-false",
		Sentence: "§1 \"Every response is JSON and carries `status` (boolean) and `message` (string).\"",
		Text:     "A refused request (4xx) carries `status` false and a message that is not empty.",
	}
	// ReadingTypesRefused: a request outside the request schema is refused.
	ReadingTypesRefused = steps.Reading{
		ID:       "generated-types-refused",
		Sentence: "§4 \"JSON bodies use `Content-Type: application/json`.\" and the Type columns of 4.1 to 4.7",
		Text: "A request whose body or query breaks a type openapi.yaml takes from the document (a wrong JSON type, " +
			"malformed JSON, an empty body, an integer beyond int64) is refused (no 2xx).",
	}
	// ReadingCoinsInFull: coins cover as much of the remainder as they can.
	ReadingCoinsInFull = steps.Reading{
		ID:       "generated-coins-cover-remainder",
		Sentence: "§4.6 \"`use_coin` | Use coins after balance.\"",
		Text:     "With `use_coin`, the coins cover min(coins / 2, what balance left) rupiah; only the rest goes to the gateway.",
	}
)

// Readings lists the readings of the generated mode.
func Readings() []steps.Reading {
	return []steps.Reading{ReadingRefusalShape, ReadingTypesRefused, ReadingCoinsInFull}
}
