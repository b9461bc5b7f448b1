package httpapi

import (
	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/jsonscan"
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
// each at most once, without escapes; string values of printable ASCII with
// no escape; integers that fit an int64, without fraction or exponent;
// true, false, null (parts only null); JSON whitespace between tokens and
// nothing after the object (internal/jsonscan reads each). Anything else
// (an escape, a non-ASCII byte, an unknown key, a value of another type,
// any syntax error) reports false, and the general path (checkStrictJSON,
// then the strict server's decoder) answers the body as before:
// TestPaymentBodyMatchesGeneralPath and FuzzPaymentBody check both.
func decodePaymentBody(b []byte, out *paymentBody) bool {
	*out = paymentBody{}
	req := &out.req
	s := jsonscan.New(b)
	text := func() (string, bool) { t, ok := s.Text(); return string(t), ok }
	seen := 0
	object := s.Object(func(key []byte) bool {
		var field int
		var ok bool
		switch string(key) {
		case "product_id":
			field, ok = fieldProductID, readValue(&s, s.Int64, &req.ProductId, nil)
		case "msisdn":
			field, ok = fieldMsisdn, readValue(&s, text, &req.Msisdn, nil)
		case "payment_method_id":
			field, ok = fieldPaymentMethodID, readValue(&s, s.Int64, &out.methodID, &req.PaymentMethodId)
		case "promotion_id":
			field, ok = fieldPromotionID, readValue(&s, s.Int64, &out.promotionID, &req.PromotionId)
		case "use_balance":
			field, ok = fieldUseBalance, readValue(&s, s.Bool, &out.useBalance, &req.UseBalance)
		case "use_coin":
			field, ok = fieldUseCoin, readValue(&s, s.Bool, &out.useCoin, &req.UseCoin)
		case "parts":
			field, ok = fieldParts, s.Null()
		case "partner_trx_id":
			field, ok = fieldPartnerTrxID, readValue(&s, text, &req.PartnerTrxId, nil)
		case "shift_code":
			field, ok = fieldShiftCode, readValue(&s, text, &out.shiftCode, &req.ShiftCode)
		}
		if field == 0 || !ok || seen&field != 0 {
			return false // an unknown key, another value, or a duplicate
		}
		seen |= field
		return true
	})
	return object && s.End()
}

// readValue reads a value with read into *v, or null: a null leaves *v
// alone and *ptr nil (encoding/json's rule); a value also points *ptr at v
// when ptr is given.
func readValue[T any](s *jsonscan.Scanner, read func() (T, bool), v *T, ptr **T) bool {
	if s.Null() {
		return true
	}
	x, ok := read()
	if !ok {
		return false
	}
	*v = x
	if ptr != nil {
		*ptr = v
	}
	return true
}
