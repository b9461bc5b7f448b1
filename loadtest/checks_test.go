package loadtest

import (
	"strings"
	"testing"

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
		{"created without data", record.OpCreate, 200, `{"status":true,"message":"` + MsgCreated + `"}`, "does not decode"},
		{"duplicate exact", record.OpCreate, 409, `{"status":false,"message":"` + MsgDuplicate + `"}`, ""},
		{"duplicate other message", record.OpCreate, 409, `{"status":false,"message":"sudah dipakai"}`, "duplicate"},
		{"wrong success message", record.OpCreate, 200, strings.Replace(ok, "diproses.", "diproses", 1), "message"},
		{"wrong echo", record.OpCreate, 200, strings.Replace(ok, "r-0-1", "r-0-2", 1), "echo"},
		{"bad arithmetic", record.OpCreate, 200, strings.Replace(ok, `"total":100`, `"total":101`, 1), "add up"},
		{"coins not halved", record.OpCreate, 200, strings.Replace(ok, `"coin_used":80`, `"coin_used":40`, 1), "twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _ := checkResponse(codes, tc.op, tc.code, []byte(tc.body), "r-0-1")
			if tc.want == "" {
				assert.Empty(t, c.violation)
			} else {
				assert.Contains(t, c.violation, tc.want)
			}
		})
	}
}
