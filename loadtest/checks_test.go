package loadtest

import (
	"strings"
	"testing"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckResponse(t *testing.T) {
	t.Parallel()
	codes, err := DocumentedCodes()
	require.NoError(t, err)
	ok := `{"status":true,"message":"Pembayaran berhasil diproses.","data":{"transaction":{"partner_trx_id":"r-0-1","transaction_number":"INV/1",` +
		`"amount":{"total":100,"balance_used":60,"coin_used":80,"coin_value_used":40,"gateway_payment":0}}}}`
	cases := []struct {
		name, op string
		code     int
		body     string
		want     string // substring of the violation; "" for none
	}{
		{"created", record.OpCreate, 200, ok, ""},
		{"undocumented code", record.OpCreate, 404, `{"status":false,"message":"x"}`, "not documented"},
		{"500 on create is not documented", record.OpCreate, 500, `{"status":false,"message":"x"}`, "not documented"},
		{"500 on list is documented", record.OpList, 500, `{"status":false,"message":"x"}`, ""},
		{"text body", record.OpStatus, 404, `not found`, "not one JSON object"},
		{"status as string", record.OpStatus, 200, `{"status":"true","message":"OK"}`, "boolean"},
		{"no message", record.OpSync, 200, `{"status":true}`, "message"},
		{"status null", record.OpStatus, 200, `{"status":null,"message":"OK"}`, "boolean"},
		{"status capitalised", record.OpStatus, 200, `{"Status":true,"message":"OK"}`, "boolean"},
		{"data after the object", record.OpCreate, 200, ok + ` trailing`, "not one JSON object"},
		{"two objects", record.OpStatus, 404, `{"status":false,"message":"x"}{}`, "not one JSON object"},
		{"created without data", record.OpCreate, 200, `{"status":true,"message":"` + contract.MsgCreated + `"}`, "does not decode"},
		{"duplicate exact", record.OpCreate, 409, `{"status":false,"message":"` + contract.MsgDuplicate + `"}`, ""},
		{"duplicate other message", record.OpCreate, 409, `{"status":false,"message":"sudah dipakai"}`, "duplicate"},
		{"wrong success message", record.OpCreate, 200, strings.Replace(ok, "diproses.", "diproses", 1), "message"},
		{"wrong echo", record.OpCreate, 200, strings.Replace(ok, "r-0-1", "r-0-2", 1), "not named"},
		{"number without a slash", record.OpCreate, 200, strings.Replace(ok, "INV/1", "INV-1", 1), "not named"},
		{"status false", record.OpCreate, 200, strings.Replace(ok, `"status":true`, `"status":false`, 1), "status true"},
		{"bad arithmetic", record.OpCreate, 200, strings.Replace(ok, `"total":100`, `"total":101`, 1), "add up"},
		{"coins not halved", record.OpCreate, 200, strings.Replace(ok, `"coin_used":80`, `"coin_used":40`, 1), "twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := checkResponse(codes, tc.op, tc.code, []byte(tc.body), "r-0-1")
			if tc.want == "" {
				assert.Empty(t, c.violation)
			} else {
				assert.Contains(t, c.violation, tc.want)
			}
		})
	}
}

// createBody is a created payment's body as the reference answers it.
const createBody = `{"status":true,"message":"Pembayaran berhasil diproses.","data":{"transaction":{"id":1,` +
	`"transaction_number":"INV/20261122/P1/00000001","status":"PROCESSING","payment_status":"PAID",` +
	`"amount":{"total":6300,"balance_used":6300,"coin_used":0,"coin_value_used":0,"gateway_payment":0},"partner_trx_id":"r-0-123456"},` +
	`"payment_method":{"id":0,"code":"BALANCE","name":"Saldo & Koin","gateway":"SALDO","type":"COIN"},` +
	`"payment":{"is_required":false,"token":null,"redirect_url":null,"amount":0},` +
	`"developer_notes":{"coin_conversion":"2 koin = 1 rupiah.","gateway_payment":"-"}}}`

// BenchmarkCheckResponse measures the checks of one created payment's
// answer: documented code, envelope, and contract.CheckCreated (message,
// transaction number and echoed id, amount arithmetic).
func BenchmarkCheckResponse(b *testing.B) {
	codes, err := DocumentedCodes()
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(createBody)
	b.ReportAllocs()
	for range b.N {
		ck := checkResponse(codes, record.OpCreate, 200, body, "r-0-123456")
		if ck.violation != "" || !ck.created {
			b.Fatal(ck.violation)
		}
	}
}

// FuzzCreatedFast: whenever the fast path vouches for an answer,
// contract.ReadCreated finds no violation in it and reads the same
// transaction number and amount; and the reference's answer takes the fast
// path.
func FuzzCreatedFast(f *testing.F) {
	for _, seed := range fastSeeds {
		f.Add(seed.body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		fast, ok := createdFast([]byte(body), "r-0-123456")
		if !ok {
			return
		}
		full, _, err := contract.ReadCreated([]byte(body), "r-0-123456")
		if err != nil {
			t.Fatalf("fast path vouched for %q; contract.ReadCreated says %v", body, err)
		}
		if fast.TransactionNumber != full.TransactionNumber || fast.PartnerTrxID != full.PartnerTrxID || fast.Amount != full.Amount {
			t.Fatalf("fast path read %+v, contract.ReadCreated %+v, in %q", fast, full, body)
		}
	})
}

// fastSeeds are answers the fast path must vouch for (fast) or leave to
// the full checks, whatever their verdict.
var fastSeeds = []struct {
	name string
	body string
	fast bool
}{
	{"reference answer", createBody, true},
	{"spaced", " {\n \"status\" : true , \"message\":\"Pembayaran berhasil diproses.\",\"data\":{\"transaction\":{\"partner_trx_id\":\"r-0-123456\",\"transaction_number\":\"INV/1\",\"amount\":{\"total\":10,\"balance_used\":10,\"coin_used\":0,\"coin_value_used\":0,\"gateway_payment\":0}}}} \n", true},
	{"escaped key", strings.Replace(createBody, `"status"`, `"st\u0061tus"`, 1), false},
	{"capitalised status", strings.Replace(createBody, `"status":true`, `"Status":true`, 1), false},
	{"capitalised transaction", strings.Replace(createBody, `"transaction":{`, `"Transaction":{`, 1), false},
	{"capitalised amount field", strings.Replace(createBody, `"total"`, `"Total"`, 1), false},
	{"kelvin sign in a key", strings.Replace(createBody, `"developer_notes"`, `"\u212a"`, 1), false},
	{"non-ASCII key in data", strings.Replace(createBody, `"developer_notes"`, `"développeur"`, 1), true},
	{"another case of a key beside it", strings.Replace(createBody, `"total":6300`, `"total":6300,"TOTAL":1`, 1), true},
	{"an amount field missing", strings.Replace(createBody, `"coin_used":0,`, ``, 1), false},
	{"an amount field null", strings.Replace(createBody, `"coin_used":0`, `"coin_used":null`, 1), false},
	{"duplicate data", strings.Replace(createBody, `{"status":true,`, `{"data":{},"status":true,`, 1), false},
	{"duplicate transaction", strings.Replace(createBody, `"data":{"transaction":{`, `"data":{"transaction":{},"transaction":{`, 1), false},
	{"duplicate amount field", strings.Replace(createBody, `"total":6300`, `"total":6300,"total":6300`, 1), false},
	{"status null", strings.Replace(createBody, `"status":true`, `"status":null`, 1), false},
	{"status false", strings.Replace(createBody, `"status":true`, `"status":false`, 1), false},
	{"fractional amount", strings.Replace(createBody, `"total":6300`, `"total":6300.0`, 1), false},
	{"exponent amount", strings.Replace(createBody, `"coin_used":0`, `"coin_used":0e0`, 1), false},
	{"huge amount", strings.Replace(createBody, `"coin_used":0`, `"coin_used":99999999999999999999`, 1), false},
	{"amounts do not add up", strings.Replace(createBody, `"total":6300`, `"total":6301`, 1), false},
	{"wrong echo", strings.Replace(createBody, `r-0-123456`, `r-0-123457`, 1), false},
	{"number without a slash", strings.Replace(createBody, `INV/20261122/P1/00000001`, `INV-20261122-P1-00000001`, 1), false},
	{"escaped echo", strings.Replace(createBody, `r-0-123456`, `r-0-12345\u0036`, 1), false},
	{"escaped message", strings.Replace(createBody, `diproses.`, `diproses\u002e`, 1), false},
	{"other message", strings.Replace(createBody, `diproses.`, `diproses`, 1), false},
	{"data null", `{"status":true,"message":"Pembayaran berhasil diproses.","data":null}`, false},
	{"trailing data", createBody + `{}`, false},
	{"not JSON", createBody[:len(createBody)-1], false},
	{"array", `[` + createBody + `]`, false},
	{"non-ASCII number", strings.Replace(createBody, `INV/20261122`, `INV/2026\xff1122`, 1), false},
	{"skipped values of every kind", strings.Replace(createBody, `"payment":{`, `"extra":[1,-2.5e+3,"a\"\\\u00e9",[],{},true,false,null,{"k":[0.1]}],"payment":{`, 1), true},
	{"leading zero in a skipped number", strings.Replace(createBody, `"id":1,`, `"id":01,`, 1), false},
	{"leading zero in an amount", strings.Replace(createBody, `"coin_used":0`, `"coin_used":00`, 1), false},
	{"trailing comma", strings.Replace(createBody, `"type":"COIN"}`, `"type":"COIN",}`, 1), false},
	{"trailing comma in an array", strings.Replace(createBody, `"payment":{`, `"extra":[1,],"payment":{`, 1), false},
	{"missing colon", strings.Replace(createBody, `"gateway":"SALDO"`, `"gateway" "SALDO"`, 1), false},
	{"missing comma", strings.Replace(createBody, `"gateway":"SALDO",`, `"gateway":"SALDO" `, 1), false},
	{"control character in a string", strings.Replace(createBody, `Saldo & Koin`, "Saldo \t Koin", 1), false},
	{"bad escape", strings.Replace(createBody, `Saldo & Koin`, `Saldo \x Koin`, 1), false},
	{"short unicode escape", strings.Replace(createBody, `Saldo & Koin`, `Saldo \u00e Koin`, 1), false},
	{"bare word", strings.Replace(createBody, `"token":null`, `"token":nul`, 1), false},
	{"number without digits", strings.Replace(createBody, `"amount":0}`, `"amount":-}`, 1), false},
	{"fraction without digits", strings.Replace(createBody, `"amount":0}`, `"amount":0.}`, 1), false},
	{"unclosed", createBody[:len(createBody)-3], false},
	{"deep nesting", strings.Replace(createBody, `"payment":{`, `"extra":`+strings.Repeat("[", 200)+strings.Repeat("]", 200)+`,"payment":{`, 1), false},
}

// TestCreatedFastVouchesOnlyForPlainAnswers: the fast path takes the
// reference's answer and leaves every irregular one to the full checks.
func TestCreatedFastVouchesOnlyForPlainAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range fastSeeds {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, ok := createdFast([]byte(tc.body), "r-0-123456")
			assert.Equal(t, tc.fast, ok)
		})
	}
}
