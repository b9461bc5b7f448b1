package httpapi

import (
	"github.com/partnercommerce/conformance/api"
)

// paymentBody is a create-payment body read by decodePaymentBody: the
// request and the values its optional fields point to, in one allocation.
type paymentBody struct {
	req                   api.CreatePaymentRequest
	methodID, promotionID int64
	useBalance, useCoin   bool
	shiftCode             string
}

// The fields of a create-payment body, one bit each.
const (
	fieldProductID = 1 << iota
	fieldMsisdn
	fieldPaymentMethodID
	fieldPromotionID
	fieldUseBalance
	fieldUseCoin
	fieldParts
	fieldPartnerTrxID
	fieldShiftCode
)

// decodePaymentBody reads the common create-payment body in one pass and
// reports whether it could. It takes only what checkStrictJSON accepts and
// encoding/json decodes without error, and decodes it to the same request:
// one flat JSON object whose keys are documented fields in their own case,
// each at most once; string values of printable ASCII with no escape;
// integers of at most 18 digits without fraction or exponent; true, false,
// null (parts only null); JSON whitespace between tokens and nothing after
// the object. Anything else (an escape, a non-ASCII byte, an unknown key,
// a value of another type, any syntax error) reports false, and the
// general path (checkStrictJSON, then the strict server's decoder) answers
// the body as before: TestPaymentBodyMatchesGeneralPath checks both.
//
// It stays one function: a hand-written parser on the hot path of every
// payment, read as one loop over the body's bytes, where calls per field
// would cost time and hide the state the loop carries.
//
//nolint:funlen // the hot-path parser above, one loop kept whole on purpose.
func decodePaymentBody(b []byte, out *paymentBody) bool {
	*out = paymentBody{}
	req := &out.req
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	seen := 0
	for {
		// A key: lower-case letters and underscores only.
		if i >= len(b) || b[i] != '"' {
			return false
		}
		start := i + 1
		i = start
		for i < len(b) && (b[i] >= 'a' && b[i] <= 'z' || b[i] == '_') {
			i++
		}
		if i >= len(b) || b[i] != '"' {
			return false
		}
		key := b[start:i]
		i = skipSpace(b, i+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		var field int
		var ok bool
		switch string(key) {
		case "product_id":
			field = fieldProductID
			i, ok = readInt(b, i, &req.ProductId, nil)
		case "msisdn":
			field = fieldMsisdn
			i, ok = readString(b, i, &req.Msisdn, nil)
		case "payment_method_id":
			field = fieldPaymentMethodID
			i, ok = readInt(b, i, &out.methodID, &req.PaymentMethodId)
		case "promotion_id":
			field = fieldPromotionID
			i, ok = readInt(b, i, &out.promotionID, &req.PromotionId)
		case "use_balance":
			field = fieldUseBalance
			i, ok = readBool(b, i, &out.useBalance, &req.UseBalance)
		case "use_coin":
			field = fieldUseCoin
			i, ok = readBool(b, i, &out.useCoin, &req.UseCoin)
		case "parts":
			field = fieldParts
			i, ok = readLiteral(b, i, "null")
		case "partner_trx_id":
			field = fieldPartnerTrxID
			i, ok = readString(b, i, &req.PartnerTrxId, nil)
		case "shift_code":
			field = fieldShiftCode
			i, ok = readString(b, i, &out.shiftCode, &req.ShiftCode)
		}
		if field == 0 || !ok || seen&field != 0 {
			return false // an unknown key, another value, or a duplicate
		}
		seen |= field
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// readLiteral reads lit (true, false or null) at b[i:].
func readLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// readString reads a string of printable ASCII without escapes into *v, or
// null: a null leaves *v alone and sets *ptr to nil (encoding/json's
// rule); a string also points *ptr at v when ptr is given.
func readString(b []byte, i int, v *string, ptr **string) (int, bool) {
	if i < len(b) && b[i] == 'n' {
		return readLiteral(b, i, "null")
	}
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	start := i + 1
	for i = start; i < len(b) && b[i] != '"'; i++ {
		if c := b[i]; c < 0x20 || c > 0x7e || c == '\\' {
			return i, false
		}
	}
	if i >= len(b) {
		return i, false
	}
	*v = string(b[start:i])
	if ptr != nil {
		*ptr = v
	}
	return i + 1, true
}

// readInt reads an integer of at most 18 digits (so it cannot overflow)
// into *v, or null, as readString does.
func readInt(b []byte, i int, v *int64, ptr **int64) (int, bool) {
	if i < len(b) && b[i] == 'n' {
		return readLiteral(b, i, "null")
	}
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start := i
	var n int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int64(b[i]-'0')
		i++
	}
	digits := i - start
	if digits == 0 || digits > 18 || (digits > 1 && b[start] == '0') {
		return i, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return i, false
	}
	if neg {
		n = -n
	}
	*v = n
	if ptr != nil {
		*ptr = v
	}
	return i, true
}

// readBool reads true, false or null, as readString does.
func readBool(b []byte, i int, v *bool, ptr **bool) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	var ok bool
	switch b[i] {
	case 'n':
		return readLiteral(b, i, "null")
	case 't':
		i, ok = readLiteral(b, i, "true")
		*v = true
	case 'f':
		i, ok = readLiteral(b, i, "false")
		*v = false
	}
	if ok && ptr != nil {
		*ptr = v
	}
	return i, ok
}
