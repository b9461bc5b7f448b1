package reference

import (
	"fmt"
	"time"
)

// PaymentStatus is a payment_status value (section 3).
type PaymentStatus string

// TransactionStatus is a transaction_status value (section 3).
type TransactionStatus string

// The payment and transaction statuses.
const (
	PaymentUnpaid  PaymentStatus = "UNPAID"
	PaymentPaid    PaymentStatus = "PAID"
	PaymentExpired PaymentStatus = "EXPIRED"
	PaymentFailed  PaymentStatus = "FAILED"

	TransactionWaitingPayment TransactionStatus = "WAITING_PAYMENT"
	TransactionProcessing     TransactionStatus = "PROCESSING"
	TransactionSuccess        TransactionStatus = "SUCCESS"
	TransactionFailed         TransactionStatus = "FAILED"
)

// txState is the state of a transaction at one instant.
type txState struct {
	Payment     PaymentStatus
	Transaction TransactionStatus
	UpdatedAt   time.Time
}

// transitionRules are the timings of docs/reference-choices.md, "State
// transitions".
type transitionRules struct {
	settleAfter time.Duration
	expireAfter time.Duration
}

// advance returns the state a transaction created at created in state st
// has reached at now. Transitions are evaluated lazily at read time, so no
// background goroutine is needed:
//
//	PAID / PROCESSING      -> PAID / SUCCESS (or PAID / FAILED when the product
//	                          fails on fulfilment) at created + settleAfter
//	UNPAID / WAITING_PAYMENT -> EXPIRED / FAILED at created + expireAfter
//
// updated_at is the time of the last transition.
func (r transitionRules) advance(st txState, created, now time.Time, failsOnFulfilment bool) txState {
	switch {
	case st.Payment == PaymentPaid && st.Transaction == TransactionProcessing:
		at := created.Add(r.settleAfter)
		if now.Before(at) {
			return st
		}
		if failsOnFulfilment {
			return txState{Payment: PaymentPaid, Transaction: TransactionFailed, UpdatedAt: at}
		}
		return txState{Payment: PaymentPaid, Transaction: TransactionSuccess, UpdatedAt: at}
	case st.Payment == PaymentUnpaid && st.Transaction == TransactionWaitingPayment:
		at := created.Add(r.expireAfter)
		if now.Before(at) {
			return st
		}
		return txState{Payment: PaymentExpired, Transaction: TransactionFailed, UpdatedAt: at}
	}
	return st
}

// serialNumber is the SN of a successful transaction of a product with one.
func serialNumber(productID, txID int64) string {
	return fmt.Sprintf("%04d%012d", productID%10000, txID)
}
