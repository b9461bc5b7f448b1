package record

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOverlapOfAMadeUpRecord: the overlap counted from a record of known
// requests is exact, whether counted as the answers come or read back from
// the run's files: the most payments of each account in flight at once (a
// gateway payment counts, a throttled one and one not delivered do not; a
// request ending as another starts does not overlap it), the payments
// sent while another was in flight, and each wave's id's most requests in
// flight at once.
func TestOverlapOfAMadeUpRecord(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return at.Add(time.Duration(n) * time.Millisecond) }
	debit := func(acct string, from, to int) Payment {
		return Payment{ID: fmt.Sprintf("%s-%d-%d", acct, from, to), Account: acct, Kind: KindBalance, At: ms(from),
			Latency: time.Duration(to-from) * time.Millisecond, Outcome: OutcomeCreated}
	}
	wave := func(id string, from, to int) Payment {
		p := debit("W", from, to)
		p.ID, p.Wave, p.Kind = id, 3, KindGateway
		return p
	}
	gateway, throttled, lost := debit("A", 7, 9), debit("B", 2, 12), debit("B", 3, 4)
	gateway.Kind, throttled.Outcome, lost.Outcome = KindGateway, OutcomeThrottled, OutcomeNotDelivered
	coins := debit("A", 20, 30)
	coins.Kind = KindCoins
	pays := []Payment{
		debit("A", 0, 10), debit("A", 5, 15), debit("A", 8, 9), coins, gateway, // A: 4 in flight at 8 ms
		debit("B", 0, 10), debit("B", 10, 20), throttled, lost, // B: one ends as the next starts
		debit("C", 40, 50), debit("C", 40, 45), // C: two sent at the same instant
		wave("w1", 0, 5), wave("w1", 1, 6), wave("w1", 2, 3), wave("w2", 0, 1), wave("w2", 1, 2),
	}
	want := []AccountOverlap{{Account: "A", Payments: 5, Debits: 4, Peak: 4, Overlapping: 3}, {Account: "B", Payments: 2, Debits: 2, Peak: 1},
		{Account: "C", Payments: 2, Debits: 2, Peak: 2, Overlapping: 2}, {Account: "W", Payments: 5, Peak: 3, Overlapping: 5}}
	wantWaves := WaveOverlap{IDs: 2, Overlapped: 1, LeastPeak: 1, MostPeak: 3}

	for _, order := range []string{"as listed", "reversed"} {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			run := &Run{Meta: Meta{Settings: Settings{Shard: SingleShard}, Began: at}}
			rec, err := NewRecorder(t.TempDir(), NewTally(at, time.Second, 10*time.Millisecond, false))
			require.NoError(t, err)
			for i := range pays {
				p := pays[i]
				if order == "reversed" {
					p = pays[len(pays)-1-i]
				}
				r := Result{Op: OpCreate}
				r.Timestamp, r.Latency = p.At, p.Latency
				rec.Add(&HitResult{Result: r, Pay: &p})
			}
			require.NoError(t, rec.Close(run))
			assert.Equal(t, want, run.Tally.Overlap.Accounts(), "as the answers came")
			assert.Equal(t, wantWaves, run.Tally.Overlap.Waves(), "as the answers came")

			read, err := tallyOf(run)
			require.NoError(t, err)
			assert.Equal(t, want, read.Overlap.Accounts(), "read back from ledger.jsonl")
			assert.Equal(t, wantWaves, read.Overlap.Waves(), "read back from ledger.jsonl")
		})
	}
}

// TestOverlapEqualsASweep: over random requests of a few accounts and
// waves, recorded in the order their answers came (with a little
// disorder, as the collector gets them) over minutes, long enough for the
// tally to forget most of them, the overlap is that of a sweep over every
// request at once.
func TestOverlapEqualsASweep(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(45, 1))
	at := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	var pays []Payment
	for i := range 20_000 {
		start := at.Add(time.Duration(i) * 10 * time.Millisecond)
		lat := time.Duration(rng.Int64N(int64(40 * time.Millisecond)))
		if rng.IntN(50) == 0 {
			lat = time.Duration(rng.Int64N(int64(5 * time.Second))) // a slow one, near the timeout
		}
		p := Payment{ID: fmt.Sprint(i), Account: fmt.Sprint("acct-", rng.IntN(3)), Kind: KindBalance, At: start, Latency: lat, Outcome: OutcomeCreated}
		if rng.IntN(4) == 0 {
			p.ID, p.Wave = fmt.Sprint("wave-", i/8), 8
		}
		pays = append(pays, p)
	}
	answered := func(p Payment) time.Time { return p.At.Add(p.Latency) }
	byAnswer := append([]Payment(nil), pays...)
	// Sorted by answer, then each moved by up to a few places.
	slices.SortFunc(byAnswer, func(a, b Payment) int { return answered(a).Compare(answered(b)) })
	for i := range byAnswer {
		if j := i + rng.IntN(4); j < len(byAnswer) {
			byAnswer[i], byAnswer[j] = byAnswer[j], byAnswer[i]
		}
	}
	var o OverlapTally
	for i := range byAnswer {
		o.add(&byAnswer[i])
	}

	type iv struct{ start, end int64 }
	accounts, ids := map[string][]iv{}, map[string][]iv{}
	for _, p := range pays {
		v := iv{p.At.UnixNano(), p.At.UnixNano() + max(int64(p.Latency), 1)}
		accounts[p.Account] = append(accounts[p.Account], v)
		if p.Wave > 0 {
			ids[p.ID] = append(ids[p.ID], v)
		}
	}
	// peak and overlapping by brute force: each request's start, the
	// requests in flight then.
	sweep := func(vs []iv) (peak, overlapping int) {
		for _, a := range vs {
			n := 0
			for _, b := range vs {
				if b.start <= a.start && a.start < b.end {
					n++
				}
			}
			peak = max(peak, n)
			if n > 1 {
				overlapping++
			}
		}
		return peak, overlapping
	}
	for _, got := range o.Accounts() {
		peak, overlapping := sweep(accounts[got.Account])
		n := len(accounts[got.Account])
		assert.Equal(t, AccountOverlap{Account: got.Account, Payments: n, Debits: n, Peak: peak, Overlapping: overlapping}, got)
	}
	want := WaveOverlap{}
	for _, vs := range ids {
		peak, _ := sweep(vs)
		want.fold(&overlapKey{peak: peak})
	}
	assert.Equal(t, want, o.Waves())
	assert.Len(t, o.Accounts(), 3)
	assert.Less(t, len(o.ids), len(ids), "the waves no later request can overlap are ended")
}
