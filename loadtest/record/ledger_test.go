package record

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzAppendPayment: the collector's hand-written ledger line is the line
// encoding/json writes, byte for byte, whatever the payment holds (strings
// to escape, zero and missing fields, times in other zones), so that
// ledger.jsonl reads back the same.
func FuzzAppendPayment(f *testing.F) {
	f.Add("r1-0-17", "load_customers[0]", KindBalance, OutcomeCreated, "", "INV/20261125/P1/00000017", uint64(17), 0, 0, int64(1002), int64(0), int64(5000), int64(0), 200, int64(1_764_040_000_123_456_789), 0, true, int64(5000))
	f.Add("r1-0-18", "tok \"quoted\" <b>&", KindCoins, OutcomeRefused, "Payment cannot be processed yet", "", uint64(18), 3, 32, int64(1245), int64(0), int64(0), int64(90), 422, int64(0), 3600, false, int64(0))
	f.Add("é\u2028\x00", "a\\b", KindGateway, OutcomeUncertain, "Post \"http://127.0.0.1\": context deadline exceeded", "", uint64(0), 1, 0, int64(2023), int64(2), int64(0), int64(0), 0, int64(-62_000_000_000_000_000), -19800, true, int64(-1))
	f.Add("r", "a", KindBalance, OutcomeCreated, "", "", uint64(1), 0, 0, int64(1), int64(0), int64(1), int64(1), 200, int64(1_764_040_000_000_000_000), 37, true, int64(0)) // an offset of seconds
	f.Fuzz(func(t *testing.T, id, account, kind, outcome, message, trx string, seq uint64, shard, wave int, product, method, maxBal, maxCoins int64,
		code int, atNanos int64, offset int, amount bool, total int64) {
		p := Payment{ID: id, Seq: seq, Shard: shard, Wave: wave, Attempt: wave % 3, Account: account, Kind: kind, ProductID: product,
			MethodID: method, MaxBalance: maxBal, MaxCoins: maxCoins, Latency: time.Duration(seq % 5e9), Outcome: outcome, Code: code, Message: message, TransactionNumber: trx}
		if atNanos != 0 {
			p.At = time.Unix(0, atNanos).In(time.FixedZone("z", offset%86400))
		}
		if amount {
			p.Amount = &Amount{BalanceUsed: total / 2, CoinUsed: total % 7, CoinValueUsed: total % 5, GatewayPayment: -total, Total: total}
		}
		want, wantErr := json.Marshal(&p)
		got, err := AppendLedgerLine(nil, &p)
		if wantErr != nil {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		assert.Equal(t, string(want)+"\n", string(got))
	})
}
