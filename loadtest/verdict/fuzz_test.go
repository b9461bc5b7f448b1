package verdict

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// FuzzReadLedger feeds arbitrary bytes to ReadLedger (the ledger.jsonl of
// another machine, read by `loadtest merge`): it errors or returns entries
// that WriteLedger writes back to the same entries, and Reconcile on them
// never panics and keeps its counters consistent.
func FuzzReadLedger(f *testing.F) {
	for _, s := range ledgerSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ledger, err := record.ReadLedger(bytes.NewReader(data))
		if err != nil {
			require.Nil(t, ledger)
			return
		}
		var buf bytes.Buffer
		require.NoError(t, record.WriteLedger(&buf, ledger))
		again, err := record.ReadLedger(&buf)
		require.NoError(t, err)
		assert.Equal(t, ledger, again)
		checkReconciliation(t, Reconcile(ledger, nil, true), len(ledger))
	})
}

func ledgerSeeds() []string {
	return []string{
		`{"partner_trx_id":"r-0-1","seq":1,"account":"a","kind":"balance","product_id":1002,"max_balance":5000,"outcome":"created","code":200,"amount":{"total":5000,"balance_used":5000},"lookup":{"code":200,"amount":{"total":5000,"balance_used":5000}}}` + "\n" +
			`{"partner_trx_id":"r-0-1","seq":2,"account":"a","kind":"balance","outcome":"created","code":200}` + "\n",
		`{"partner_trx_id":"r-0-2","seq":2,"wave_size":3,"account":"a","outcome":"duplicate","code":409}` + "\n" +
			`{"partner_trx_id":"r-0-2","seq":3,"wave_size":3,"account":"a","outcome":"uncertain","max_coins":9}` + "\n",
		"",
		"null\n",
		`{"seq":-1}`,
		`{"partner_trx_id":"r-0-3","amount":{"total":"5"}}`,
		`{"partner_trx_id":"r-0-4"` + "\n",
		"[]\n",
	}
}

func checkReconciliation(t *testing.T, r *Reconciliation, requests int) {
	t.Helper()
	require.NotNil(t, r)
	assert.Equal(t, requests, r.Requests)
	assert.LessOrEqual(t, r.IDs, r.Requests)
	assert.LessOrEqual(t, r.Created+r.UncertainIDs, r.IDs)
	assert.LessOrEqual(t, r.Uncertain, r.Requests)
	assert.GreaterOrEqual(t, r.Duplicates, 0)
	total, omitted := 0, 0
	for inv, n := range r.Counts {
		assert.Contains(t, []string{InvContract, InvUniqueID, InvIdempotency, InvLookup, InvBalance, InvCoins}, inv)
		total += n
		omitted += r.Omitted(inv)
	}
	assert.Equal(t, total, r.ViolationCount())
	assert.Equal(t, total, len(r.Violations)+omitted)
}

// FuzzReadDir writes arbitrary shard.json, results.bin and
// ledger.jsonl files into a directory and reads it as `loadtest merge` does
// with the directories of other machines. record.ReadDir never panics; on
// success the shard is valid, every result survives the write/read cycle of
// results.bin, and merging the record alone terminates.
func FuzzReadDir(f *testing.F) {
	for _, s := range artifactSeeds(f) {
		f.Add(s.shard, s.results, s.ledger)
	}
	f.Fuzz(func(t *testing.T, shard, results, ledger []byte) {
		dir := t.TempDir()
		for name, data := range map[string][]byte{record.FileShard: shard, record.FileResults: results, record.FileLedger: ledger} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
		}
		o, err := record.ReadDir(dir)
		if err != nil {
			require.Nil(t, o)
			return
		}
		require.NoError(t, o.Meta.Shard.Validate())
		payments := 0
		ledgerErr := o.EachPayment(func(*record.Payment) error { payments++; return nil })
		if o.Meta.Gathered() {
			v, err := Judge(o, time.Second)
			if ledgerErr != nil {
				require.Error(t, err, "a ledger that cannot be read is not reconciled")
				return
			}
			require.NoError(t, err)
			checkReconciliation(t, v.Reconciliation, payments)
		}
		count := 0
		resultsErr := o.EachResult(func(r *record.Result) error {
			count++
			again := record.FromVegeta(r.Vegeta())
			again.Shard = r.Shard
			assert.True(t, r.Scheduled.Equal(again.Scheduled), "result %d: scheduled %s comes back as %s", count, r.Scheduled, again.Scheduled)
			again.Scheduled = r.Scheduled
			assert.Equal(t, *r, again, "result %d", count)
			return nil
		})
		m, err := record.Merge([]*record.Run{o}, false)
		if err == nil {
			require.NoError(t, resultsErr)
			assert.Equal(t, count, m.Tally.Requests())
		}
	})
}

type artifactSeed struct{ shard, results, ledger []byte }

// artifactSeeds builds the seeds of FuzzReadDir: a reconciled
// single-shard run, a shard of a split run with a plain vegeta result, and
// files that are empty or truncated.
func artifactSeeds(tb testing.TB) []artifactSeed {
	tb.Helper()
	at := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	gob := func(rs ...vegeta.Result) []byte {
		var buf bytes.Buffer
		enc := vegeta.NewEncoder(&buf)
		for i := range rs {
			require.NoError(tb, enc.Encode(&rs[i]))
		}
		return buf.Bytes()
	}
	created := (&record.Result{Result: vegeta.Result{Attack: record.OpCreate, Seq: 1, Code: 200, Timestamp: at.Add(time.Millisecond), Latency: 3 * time.Millisecond,
		Method: "POST", URL: "http://x/client/v2/payment"}, Scheduled: at, Expected: true}).Vegeta()
	violating := (&record.Result{Result: vegeta.Result{Attack: record.OpStatus, Seq: 2, Code: 500, Timestamp: at, Error: "500 Internal Server Error"},
		Scheduled: at, Violation: "§1: not JSON"}).Vegeta()
	plain := vegeta.Result{Attack: "vegeta", Seq: 7, Code: 204, Timestamp: at}
	ledger := []byte(ledgerSeeds()[0])
	single := []byte(`{"meta":{"run_id":"r","scenario":"create","shard":{"index":0,"count":1},"load":{"pacing":"constant","rate":1,"duration":1000000000},"reconciled":true},` +
		`"generator":{"planned":2,"sent":2},"accounts":[{"account":"a","shard":0,"before":{"balance":10000,"coins":5,"at":"2025-01-02T03:04:05Z"},"after":{"balance":5000,"coins":5,"at":"2025-01-02T03:04:06Z"}}]}`)
	split := []byte(`{"meta":{"run_id":"r","scenario":"mixed","shard":{"index":1,"count":3}},"accounts":[]}`)
	return []artifactSeed{
		{single, gob(created, violating), ledger},
		{split, gob(plain), []byte(ledgerSeeds()[1])},
		{[]byte(`{"meta":{"shard":{"index":0,"count":0}}}`), nil, nil},
		{[]byte(`{"meta":{"shard":{"index":0,"count":1000000000000}}}`), nil, nil},
		{single, gob(created)[:20], ledger},
		{[]byte(`{"meta":`), nil, nil},
	}
}
