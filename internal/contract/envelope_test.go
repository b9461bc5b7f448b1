package contract

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		body    string
		want    Envelope
		wantErr error
	}{
		{"success", `{"status":true,"message":"OK","data":{}}`, Envelope{true, "OK"}, nil},
		{"failure", `{"status":false,"message":"Transaksi tidak ditemukan."}`, Envelope{false, "Transaksi tidak ditemukan."}, nil},
		{"surrounding space", " \n{\"status\":true,\"message\":\"\"}\n", Envelope{true, ""}, nil},
		{"not json", `<html>`, Envelope{}, ErrNotObject},
		{"empty", ``, Envelope{}, ErrNotObject},
		{"null", `null`, Envelope{}, ErrNotObject},
		{"array", `[{"status":true,"message":"OK"}]`, Envelope{}, ErrNotObject},
		{"trailing data", `{"status":true,"message":"OK"} trailing`, Envelope{}, ErrNotObject},
		{"two objects", `{"status":true,"message":"OK"}{}`, Envelope{}, ErrNotObject},
		{"status missing", `{"message":"OK"}`, Envelope{}, errStatusMissing},
		{"status null", `{"status":null,"message":"OK"}`, Envelope{}, errStatusMissing},
		{"status string", `{"status":"true","message":"OK"}`, Envelope{}, errStatusMissing},
		{"status capitalised", `{"Status":true,"message":"OK"}`, Envelope{}, errStatusMissing},
		{"message null", `{"status":true,"message":null}`, Envelope{}, errMessageMissing},
		{"message number", `{"status":true,"message":1}`, Envelope{}, errMessageMissing},
		{"message capitalised", `{"status":true,"MESSAGE":"OK"}`, Envelope{}, errMessageMissing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _, err := Decode([]byte(tc.body))
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestDecodeReturnsTheFields(t *testing.T) {
	t.Parallel()
	_, fields, err := Decode([]byte(`{"status":true,"message":"OK","data":{"id":12345678901234567}}`))
	require.NoError(t, err)
	var data map[string]json.Number
	require.NoError(t, Unmarshal(fields["data"], &data))
	assert.Equal(t, json.Number("12345678901234567"), data["id"], "numbers stay exact")
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"status":true,"message":"OK"}`, `{"status":null}`, `{} {}`, `[]`, `{"Status":false,"message":""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		env, _, err := Decode(body)
		if err != nil {
			return
		}
		// An accepted body is one object whose exact keys hold these values.
		var fields map[string]any
		require.NoError(t, Unmarshal(body, &fields))
		assert.Equal(t, env.Status, fields["status"])
		assert.Equal(t, env.Message, fields["message"])
	})
}
