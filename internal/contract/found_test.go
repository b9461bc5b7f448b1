package contract

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckFoundBy(t *testing.T) {
	created := Record{PartnerTrxID: "p-1", TransactionNumber: "TRX/1/2/3"}
	if err := CheckFoundBy("transaction_number", created, true, created); err != nil {
		t.Errorf("found as created: %v", err)
	}
	err := CheckFoundBy("transaction_number", created, false, Record{})
	if !errors.Is(err, ErrNotFoundBy) || !strings.Contains(err.Error(), "transaction_number=TRX/1/2/3") || !strings.Contains(err.Error(), MsgNotFound) {
		t.Errorf("not found: %v", err)
	}
	other := Record{PartnerTrxID: "p-2", TransactionNumber: "TRX/1/2/4"}
	if err := CheckFoundBy("partner_trx_id", created, true, other); !errors.Is(err, ErrRecordNotNamed) {
		t.Errorf("another record: %v", err)
	}
}
