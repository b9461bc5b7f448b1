package verdict

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// FuzzReadHistory: a history file, which a user may hand-edit or truncate,
// is read without a panic; what reads back writes back the same; and the
// check of any history decodes ends without a panic.
func FuzzReadHistory(f *testing.F) {
	var seed bytes.Buffer
	if err := writeLines(&seed, []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 50), hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 100, 0),
		hPay(1, "A", "b", 10, 0, record.OutcomeUncertain, 0, 0), hStatus("A", "b", 30, 31, 200, 40), hRead(0, "A", 40, 41, 860, 50)}); err != nil {
		f.Fatal(err)
	}
	f.Add(seed.Bytes())
	f.Add([]byte(`{"client":0,"op":"profile","account":"A","invoke":9223372036854775807,"return":-9223372036854775808,"code":200,"balance":1,"coins":1}`))
	f.Add([]byte(`{"op":"create","account":"A","partner_trx_id":"x","outcome":"created","invoke":5,"return":1}`))
	f.Add([]byte("{\"op\":\"create\"}\n{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ops, err := readHistory(bytes.NewReader(b))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := writeLines(&out, ops); err != nil {
			t.Fatal(err)
		}
		back, err := readHistory(&out)
		if err != nil || len(back) != len(ops) {
			t.Fatalf("round trip: %v, %d of %d operations", err, len(back), len(ops))
		}
		hc := CheckHistory(ops, time.Second)
		if hc.Verdict == "" {
			t.Fatal("no verdict")
		}
	})
}

// readHistory reads the operations of a history file's content.
func readHistory(r io.Reader) ([]record.HistoryOp, error) {
	var out []record.HistoryOp
	err := record.EachHistoryOp(r, func(op *record.HistoryOp) error { out = append(out, *op); return nil })
	return out, err
}
