package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunWalletWhenPaid: with --wallet-when-paid, a payment that takes the
// split-payment customer's balance and leaves the rest to a gateway reports
// the balance taken, and the profile still shows it.
func TestRunWalletWhenPaid(t *testing.T) {
	t.Parallel()
	base, cancel, done := start(t, "--addr", "127.0.0.1:0", "--wallet-when-paid")
	defer stop(t, cancel, done)
	call := func(method, path, body string) map[string]any {
		req, err := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-SECRET-KEY", "sk-nusantara-7f3a9c")
		req.Header.Set("Authorization", "Bearer tok-nusantara-split")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer func() { _ = resp.Body.Close() }()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var out map[string]any
		dec := json.NewDecoder(resp.Body)
		dec.UseNumber() // money stays an integer
		require.NoError(t, dec.Decode(&out))
		return out
	}
	paid := call(http.MethodPost, "/client/v2/payment",
		`{"product_id":1001,"msisdn":"081234567890","payment_method_id":1,"use_balance":true,"use_coin":false,"partner_trx_id":"when-paid-1"}`)
	amount := paid["data"].(map[string]any)["transaction"].(map[string]any)["amount"].(map[string]any)
	assert.Equal(t, json.Number("1500"), amount["balance_used"])
	assert.Equal(t, json.Number("4800"), amount["gateway_payment"])
	profile := call(http.MethodGet, "/client/v2/customer/profile", "")
	assert.Equal(t, json.Number("1500"), profile["data"].(map[string]any)["balance"].(map[string]any)["available"], "the gateway part is unpaid: the balance stays")
}
