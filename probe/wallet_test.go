package probe_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
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
// profile declares, and little, still has its races judged: the probe
// plans its waves from what the wallet holds (fewer payments a wave,
// coins when the balance is short), and where the wallet cannot pay for
// the waves a race needs, the case is not judged and names what to fund;
// never passed. Against the two races' faults, each case fails or is not
// judged, never passes; against the correct reference it passes where the
// wallet allows. Before, the probe kept min_balance and min_coins as a
// reserve and skipped both race cases ("would leave less than min_balance
// … fund the customer"), and the run passed.
func TestAModestWalletIsNeverAPass(t *testing.T) {
	t.Parallel()
	wallets := []struct {
		name           string
		balance, coins int64
	}{
		{"balance for a few payments", 200_000, 0},
		{"coins for a few payments", 0, 400_000},
		{"coins for one payment", 0, 39_800},
	}
	// target is the case that judges each fault's race.
	target := map[reference.Fault]int{"": -1, reference.FaultRacyDuplicateCheck: 0, reference.FaultLostUpdateDebit: 1}
	for _, wl := range wallets {
		for _, f := range []reference.Fault{"", reference.FaultRacyDuplicateCheck, reference.FaultLostUpdateDebit} {
			t.Run(fmt.Sprintf("%s, %s", wl.name, cmpOr(f, "the reference")), func(t *testing.T) {
				t.Parallel()
				opts := probe.Options{Profile: modestReference(t, wl.balance, wl.coins, faultsOf(f)...), Seed: 7}
				res := run(t, opts)
				require.Len(t, res.Cases, 3)
				for i, c := range res.Cases[:2] {
					why := fmt.Sprintf("%s: %s\n%s%s", c.Name(), c.Status, c.Failure, c.Reason)
					assert.NotEqual(t, verdict.StatusSkipped, c.Status, "a race is never skipped for the wallet's sake: %s", why)
					if c.Status == verdict.StatusNotJudged {
						assert.Contains(t, c.Reason, "fund the customer", why)
					}
					if target[f] == i {
						assert.NotEqual(t, verdict.StatusPassed, c.Status, "the case of the race %s passed: %s", f, why)
					}
				}
				if f == "" && wl.coins != 39_800 {
					for _, c := range res.Cases {
						assert.Equal(t, verdict.StatusPassed, c.Status, "a wallet for a few payments judges every race: %s%s", c.Failure, c.Reason)
					}
				}
				if wl.coins == 39_800 {
					assert.Equal(t, verdict.StatusNotJudged, res.Cases[1].Status, "two payments of the cheapest product do not fit in half of 39,800 coins")
					assert.True(t, strings.Contains(res.Cases[1].Reason, "ran out"), res.Cases[1].Reason)
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
