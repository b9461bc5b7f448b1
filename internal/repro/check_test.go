package repro

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
)

// checked runs the check functions with the answers given (name: HTTP
// status and body) and then the lines; it returns what the script printed
// and whether it exited with status 1 (a defect seen).
func checked(t *rapid.T, answers map[string]string, codes map[string]int, lines ...string) (string, bool) {
	var b strings.Builder
	b.WriteString(checkFuncs + "\n")
	for name, body := range answers {
		fmt.Fprintf(&b, "printf '%%s' '%s' >\"$DIR/%s\"; echo %d >\"$DIR/%s.code\"\n", body, name, codes[name], name)
	}
	b.WriteString(strings.Join(lines, "\n") + "\n")
	cmd := exec.CommandContext(context.Background(), "sh", "-eu", "-c", b.String())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
		t.Fatalf("the checks failed: %v\n%s", err, out.String())
	}
	return out.String(), err != nil
}

// profileBody is a profile answer showing w, as the reference writes it.
func profileBody(w contract.Wallet) string {
	return fmt.Sprintf(`{"data":{"balance":{"available":%d},"coin":{"available":%d,"available_value":%d,"note":"2 koin = 1 rupiah."},"customer":{"id":15}},"message":"OK","status":true}`,
		w.Balance, w.Coins, contract.CoinValue(w.Coins))
}

// paymentBody is a created payment's answer with the amount a.
func paymentBody(t *rapid.T, a api.Amount) string {
	raw, err := json.Marshal(map[string]any{"status": true, "message": "Pembayaran berhasil diproses.",
		"data": map[string]any{"transaction": map[string]any{"amount": a, "partner_trx_id": "x"}}})
	require.NoError(t, err)
	return string(raw)
}

// TestTheScriptsWalletCheckIsTheContracts: the wallet check a script
// computes (wallet_from, paid, wallet_check, taken_within) says DEFECT
// exactly when internal/contract's does (contract.CheckWalletAsReported
// outside the range; contract.CheckTakenWithin), with the same figures,
// for any wallet, payments created or refused, mixed or not, and wallet
// after.
func TestTheScriptsWalletCheckIsTheContracts(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not installed")
	}
	rapid.Check(t, func(t *rapid.T) {
		money := rapid.Int64Range(-3000, 6000)
		before := contract.Wallet{Balance: money.Draw(t, "balance"), Coins: money.Draw(t, "coins")}
		answers, codes := map[string]string{"before": profileBody(before)}, map[string]int{"before": 200}
		lines := []string{"wallet_from before"}
		want := contract.Exactly(before)
		var sum contract.Wallet
		for i := range rapid.IntRange(0, 4).Draw(t, "payments") {
			name := fmt.Sprintf("pay%d", i)
			a := api.Amount{BalanceUsed: rapid.Int64Range(0, 3000).Draw(t, "balance_used"), CoinUsed: rapid.Int64Range(0, 3000).Draw(t, "coin_used"),
				GatewayPayment: rapid.SampledFrom([]int64{0, 0, 500}).Draw(t, "gateway_payment")}
			code := rapid.SampledFrom([]int{200, 200, 409, 422}).Draw(t, "status")
			answers[name], codes[name] = paymentBody(t, a), code
			lines = append(lines, "paid "+name)
			if code == 200 {
				want = want.After(a)
				sum.Balance += a.BalanceUsed
				sum.Coins += a.CoinUsed
			}
		}
		most := want.Most()
		after := contract.Wallet{
			Balance: rapid.Int64Range(want.Reported.Balance-2, most.Balance+2).Draw(t, "balance after"),
			Coins:   rapid.Int64Range(want.Reported.Coins-2, most.Coins+2).Draw(t, "coins after"),
		}
		answers["after"], codes["after"] = profileBody(after), 200
		withinErr := contract.CheckTakenWithin(contract.Exactly(before), sum)
		out, defect := checked(t, answers, codes, append(lines, "taken_within 'in wave 1 of 1'", "wallet_check after", "echo "+NoDefectLine)...)
		if withinErr != nil {
			assert.True(t, defect, "contract: %v; the script:\n%s", withinErr, out)
			assert.Contains(t, out, fmt.Sprintf("DEFECT in wave 1 of 1: together the payments took balance %d and %d coins from a wallet of balance %d and %d coins",
				sum.Balance, sum.Coins, before.Balance, before.Coins))
			return
		}
		_, err := contract.CheckWalletAsReported(want, after)
		if err == nil || want.Holds(after) {
			assert.False(t, defect, "contract: %v; the script:\n%s", err, out)
			assert.Contains(t, out, NoDefectLine)
			return
		}
		assert.True(t, defect, "contract: %v; the script:\n%s", err, out)
		assert.Contains(t, err.Error(), fmt.Sprintf("it holds balance %d and %d coins, but the payments reported leave %s", after.Balance, after.Coins, want))
		assert.Contains(t, out, fmt.Sprintf("DEFECT: the wallet holds balance %d and %d coins, the payments reported leave %s\n", after.Balance, after.Coins, want))
	})
}
