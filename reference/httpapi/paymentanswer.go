package httpapi

import (
	"strconv"
	"unicode/utf8"

	"github.com/partnercommerce/conformance/api"
)

// appendPaymentAnswer appends the 200 answer of a created payment to dst,
// byte for byte what the generated strict server writes for it
// (json.NewEncoder(w).Encode: fields in declaration order, HTML-escaped
// strings, a final newline), without reflection. TestPaymentAnswerMatchesJSON
// compares it with encoding/json on generated answers; a field added to
// the generated types fails that test until it is written here too.
func appendPaymentAnswer(dst []byte, r *api.CreatePayment200JSONResponse) []byte {
	d := &r.Data
	dst = append(dst, `{"data":{"developer_notes":{"coin_conversion":`...)
	dst = appendJSONString(dst, d.DeveloperNotes.CoinConversion)
	dst = append(dst, `,"gateway_payment":`...)
	dst = appendJSONString(dst, d.DeveloperNotes.GatewayPayment)
	dst = append(dst, `},"payment":{"amount":`...)
	dst = strconv.AppendInt(dst, d.Payment.Amount, 10)
	dst = append(dst, `,"is_required":`...)
	dst = strconv.AppendBool(dst, d.Payment.IsRequired)
	dst = append(dst, `,"redirect_url":`...)
	dst = appendJSONOptional(dst, d.Payment.RedirectUrl)
	dst = append(dst, `,"token":`...)
	dst = appendJSONOptional(dst, d.Payment.Token)
	dst = append(dst, `},"payment_method":{"code":`...)
	dst = appendJSONString(dst, d.PaymentMethod.Code)
	dst = append(dst, `,"gateway":`...)
	dst = appendJSONString(dst, d.PaymentMethod.Gateway)
	dst = append(dst, `,"id":`...)
	dst = strconv.AppendInt(dst, d.PaymentMethod.Id, 10)
	dst = append(dst, `,"name":`...)
	dst = appendJSONString(dst, d.PaymentMethod.Name)
	dst = append(dst, `,"type":`...)
	dst = appendJSONString(dst, d.PaymentMethod.Type)
	t := &d.Transaction
	dst = append(dst, `},"transaction":{"amount":{"balance_used":`...)
	dst = strconv.AppendInt(dst, t.Amount.BalanceUsed, 10)
	dst = append(dst, `,"coin_used":`...)
	dst = strconv.AppendInt(dst, t.Amount.CoinUsed, 10)
	dst = append(dst, `,"coin_value_used":`...)
	dst = strconv.AppendInt(dst, t.Amount.CoinValueUsed, 10)
	dst = append(dst, `,"gateway_payment":`...)
	dst = strconv.AppendInt(dst, t.Amount.GatewayPayment, 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, t.Amount.Total, 10)
	dst = append(dst, `},"id":`...)
	dst = strconv.AppendInt(dst, t.Id, 10)
	dst = append(dst, `,"partner_trx_id":`...)
	dst = appendJSONString(dst, t.PartnerTrxId)
	dst = append(dst, `,"payment_status":`...)
	dst = appendJSONString(dst, string(t.PaymentStatus))
	dst = append(dst, `,"status":`...)
	dst = appendJSONString(dst, string(t.Status))
	dst = append(dst, `,"transaction_number":`...)
	dst = appendJSONString(dst, t.TransactionNumber)
	dst = append(dst, `}},"message":`...)
	dst = appendJSONString(dst, r.Message)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendBool(dst, r.Status)
	return append(dst, "}\n"...)
}

// appendJSONOptional appends null for nil, else the string.
func appendJSONOptional(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, *s)
}

// appendJSONString appends s as encoding/json writes a string with HTML
// escaping on: `"` and `\` escaped, \b \f \n \r \t by name, other control
// characters and < > & as \u00XX, invalid UTF-8 bytes as \ufffd, U+2028
// and U+2029 as \u2028 and \u2029, all else as is.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
