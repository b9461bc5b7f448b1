package verdict

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// FuzzReadLedger feeds arbitrary bytes to the ledger's reader (the
// ledger.jsonl of another machine, read by `loadtest merge`): it errors or
// returns entries that write back to the same entries, and Reconcile on
// them never panics and keeps its counters consistent.
func FuzzReadLedger(f *testing.F) {
	for _, s := range ledgerSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ledger, err := readLedger(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		require.NoError(t, writeLines(&buf, ledger))
		again, err := readLedger(&buf)
		require.NoError(t, err)
		assert.Equal(t, ledger, again)
		checkReconciliation(t, Reconcile(ledger, nil, true), len(ledger))
	})
}

// readLedger reads the entries of a ledger file's content.
func readLedger(r io.Reader) ([]record.Payment, error) {
	var out []record.Payment
	err := record.EachLedgerEntry(r, func(p *record.Payment) error { out = append(out, *p); return nil })
	return out, err
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
// success the shard is valid, merging the record alone terminates, and
// every result survives the merge's write and read of results.bin.
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
		var read []record.Result
		readErr := o.EachResult(func(r *record.Result) error { read = append(read, *r); return nil })
		m, err := record.Merge([]*record.Run{o}, false)
		if err != nil {
			return
		}
		require.NoError(t, readErr)
		assert.Equal(t, len(read), m.Tally.Requests())
		merged := t.TempDir()
		require.NoError(t, record.WriteDir(merged, m))
		again, err := record.ReadDir(merged)
		require.NoError(t, err)
		i := 0
		require.NoError(t, again.EachResult(func(r *record.Result) error {
			want := read[i]
			assert.True(t, want.Scheduled.Equal(r.Scheduled), "result %d: scheduled %s comes back as %s", i, want.Scheduled, r.Scheduled)
			want.Scheduled, want.Seq, want.Shard = r.Scheduled, r.Seq, r.Shard // the merge numbers each operation's read anew
			assert.Equal(t, want, *r, "result %d", i)
			i++
			return nil
		}))
		assert.Equal(t, len(read), i)
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
	header := func(kv ...string) http.Header {
		h := http.Header{"X-Loadtest-Scheduled": {strconv.FormatInt(at.UnixNano(), 10)}}
		for i := 0; i < len(kv); i += 2 {
			h[kv[i]] = []string{kv[i+1]}
		}
		return h
	}
	created := vegeta.Result{Attack: record.OpCreate, Seq: 1, Code: 200, Timestamp: at.Add(time.Millisecond), Latency: 3 * time.Millisecond,
		Method: "POST", URL: "http://x/client/v2/payment", Headers: header()}
	violating := vegeta.Result{Attack: record.OpStatus, Seq: 2, Code: 500, Timestamp: at, Error: "500 Internal Server Error",
		Headers: header("X-Loadtest-Verdict", "unexpected", "X-Loadtest-Violation", "§1: not JSON")}
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
