package reference

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

// crashDirEnv names the state directory of the crash test's child: the
// test binary started with it set runs crashChild instead of the tests.
const crashDirEnv = "REFERENCE_CRASH_TEST_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashChild(dir, os.Getenv("REFERENCE_CRASH_TEST_ROUND"))
		return
	}
	os.Exit(m.Run())
}

// crashChild creates payments from 8 goroutines over the state directory
// dir until it is killed, and prints "ack ID" once each is answered.
func crashChild(dir, round string) {
	ds, err := DefaultDataset()
	if err == nil {
		var s *Store
		if s, err = NewStore(ds, WithState(dir)); err == nil {
			var out sync.Mutex
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					c, err := s.Authenticate(referencetest.KeyNusantara, referencetest.TokFunded, Access{Token: true})
					for n := 0; err == nil; n++ {
						id := fmt.Sprintf("crash-%s-%d-%d", round, g, n)
						if _, err = s.CreatePayment(c, payIn(1002, "081234567890", 0, id, true, true)); err == nil {
							out.Lock()
							_, err = fmt.Fprintf(os.Stdout, "ack %s\n", id)
							out.Unlock()
						}
					}
					fmt.Fprintln(os.Stderr, "crash child:", err)
				})
			}
			wg.Wait()
		}
	}
	fmt.Fprintln(os.Stderr, "crash child:", err)
	os.Exit(3)
}

// TestStateCrash kills a process with SIGKILL while it writes payments,
// twice (the second over the journal the first left), and checks that
// every payment it acknowledged is present exactly once and that the
// wallet equals the data set's minus every payment of the journal.
func TestStateCrash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var acked []string
	for round := range 2 {
		acked = append(acked, runCrashChild(t, dir, round, 150)...)
	}
	require.GreaterOrEqual(t, len(acked), 300)

	s, err := NewStore(mustDataset(t), WithState(dir))
	require.NoError(t, err)
	defer func() { _ = s.Close() }()
	c := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
	for _, id := range acked {
		_, err := s.PaymentStatus(c, StatusQuery{PartnerTrxID: ptr(id)})
		require.NoError(t, err, "acknowledged payment %s", id)
	}
	s.mu.Lock()
	seen := map[string]int{}
	var balanceUsed, coinUsed int64
	for i := range s.txs.n {
		r := s.txs.at(i)
		if r.account == c.AccountID {
			seen[s.txs.trxID(i)]++
			balanceUsed += r.amount.BalanceUsed
			coinUsed += r.amount.CoinUsed
		}
	}
	balance, coins := s.accounts[c.AccountID].balance, s.accounts[c.AccountID].coins
	s.mu.Unlock()
	for id, n := range seen {
		require.Equal(t, 1, n, "payment %s stored %d times", id, n)
	}
	assert.GreaterOrEqual(t, len(seen), len(acked))
	seed := mustDataset(t).Accounts[3]
	require.Equal(t, referencetest.TokFunded, seed.Token)
	assert.Equal(t, seed.Balance-balanceUsed, balance, "the wallet is the data set's minus the journal's payments")
	assert.Equal(t, seed.Coins-coinUsed, coins)
	assert.Positive(t, balanceUsed)
}

func mustDataset(tb testing.TB) *Dataset {
	tb.Helper()
	ds, err := DefaultDataset()
	require.NoError(tb, err)
	return ds
}

// runCrashChild starts crashChild over dir, kills it with SIGKILL after
// after acknowledgements, and returns the ids it acknowledged.
func runCrashChild(t *testing.T, dir string, round, after int) []string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, fmt.Sprintf("REFERENCE_CRASH_TEST_ROUND=%d", round))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	killed := false
	timer := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	var acked []string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		id, ok := strings.CutPrefix(lines.Text(), "ack ")
		if !ok {
			continue
		}
		acked = append(acked, id)
		if len(acked) == after && !killed {
			require.NoError(t, cmd.Process.Kill()) // SIGKILL
			killed = true
		}
	}
	err = cmd.Wait()
	require.True(t, killed, "the child stopped by itself: %v\n%s", err, stderr.String())
	return acked
}
