package probe_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/probe"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/verdict"
)

// modestReference serves the reference whose funded customer holds
// balance and coins (the embedded data set funds it with 10^12), with the
// faults, and returns its profile, which declares what the customer holds
// as min_balance and min_coins: a partner's staging wallet.
func modestReference(t *testing.T, balance, coins int64, faults ...reference.Fault) *profiles.Profile {
	t.Helper()
	ds, err := reference.DefaultDataset()
	require.NoError(t, err)
	p := profiles.Reference("")
	found := false
	for i := range ds.Accounts {
		if ds.Accounts[i].Token == p.FundedCustomer.Token {
			ds.Accounts[i].Balance, ds.Accounts[i].Coins, found = balance, coins, true
		}
	}
	require.True(t, found, "the data set has the profile's funded customer")
	st, err := reference.NewStore(ds, reference.WithFaults(faults...))
	require.NoError(t, err)
	srv := httptest.NewServer(httpapi.NewServer(slog.New(slog.DiscardHandler), st))
	t.Cleanup(srv.Close)
	p = profiles.Reference(srv.URL)
	p.FundedCustomer.MinBalance, p.FundedCustomer.MinCoins = balance, coins
	return p
}

// TestAModestWalletIsNeverAPass: a funded customer that holds what its
// profile declares, and little, still has its races judged where it can
// pay for them: the probe plans its waves from what the wallet holds (coins
// when the balance is short), and where the wallet cannot pay for the
// waves a race needs (five full waves), the case is not judged and names
// what to fund; never passed, never skipped. Against the two races' faults,
// the case of each fault fails or is not judged; against the correct
// reference a wallet that pays for them passes. Before, the probe kept
// min_balance and min_coins as a reserve and skipped both race cases
// ("would leave less than min_balance … fund the customer"), and the run
// passed.
func TestAModestWalletIsNeverAPass(t *testing.T) {
	t.Parallel()
	wallets := []struct {
		name           string
		balance, coins int64
		// judged says which cases the wallet pays for (by index).
		judged [2]bool
	}{
		{"balance for every wave", 1_000_000, 0, [2]bool{true, true}},
		{"coins for a few waves", 0, 400_000, [2]bool{false, false}},
		{"coins for one payment", 0, 39_800, [2]bool{false, false}},
	}
	// target is the case that judges each fault's race.
	target := map[reference.Fault]int{"": -1, reference.FaultRacyDuplicateCheck: 0, reference.FaultLostUpdateDebit: 1}
	for _, wl := range wallets {
		for _, f := range []reference.Fault{"", reference.FaultRacyDuplicateCheck, reference.FaultLostUpdateDebit} {
			t.Run(fmt.Sprintf("%s, %s", wl.name, cmpOr(f, "the reference")), func(t *testing.T) {
				t.Parallel()
				res := run(t, probe.Options{Profile: modestReference(t, wl.balance, wl.coins, faultsOf(f)...), Seed: 7})
				require.Len(t, res.Cases, 3)
				for i, c := range res.Cases[:2] {
					why := fmt.Sprintf("%s: %s\n%s%s", c.Name(), c.Status, c.Failure, c.Reason)
					switch {
					case !wl.judged[i]:
						// A race caught in the few waves paid for is a
						// failure all the same.
						assert.NotEqual(t, verdict.StatusPassed, c.Status, "the wallet cannot pay for the waves a race needs: %s", why)
						assert.NotEqual(t, verdict.StatusSkipped, c.Status, why)
						if c.Status == verdict.StatusNotJudged {
							assert.Contains(t, c.Reason, "fund the customer", why)
						}
					case target[f] == i:
						assert.Equal(t, verdict.StatusFailed, c.Status, "the race of %s is caught: %s", f, why)
					case f == "":
						assert.Equal(t, verdict.StatusPassed, c.Status, why)
					default:
						assert.NotEqual(t, verdict.StatusSkipped, c.Status, why)
					}
				}
			})
		}
	}
}

func cmpOr(f reference.Fault, s string) string {
	if f == "" {
		return s
	}
	return string(f)
}
