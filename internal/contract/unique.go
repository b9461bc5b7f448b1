package contract

import (
	"errors"
	"fmt"
)

// SentenceUniqueTrxID is the sentence CheckWave rests on.
const SentenceUniqueTrxID = "§4.6: partner_trx_id — \"Partner's transaction id; at most 50 characters; unique.\" " +
	"§7 Payment: 409 create, \"partner_trx_id already used\"."

// Wave is what a judge saw of the payment requests sent with one
// partner_trx_id of one partner, at once or one after another: how many
// were created (answered 200), refused as a reuse of the id (409), refused
// for another reason (any other refusal, sent before them included), and
// got no answer (their effect unknown until a status lookup settles it).
// A throttled answer is not an answer: the request sent again is counted
// by what it got.
type Wave struct {
	Created, Duplicate, Refused, Uncertain int
}

// The ways payments with one partner_trx_id can break its uniqueness.
var (
	// ErrCreatedTwice is a partner_trx_id with which more than one payment
	// was created.
	ErrCreatedTwice = errors.New("more than one payment was created with one partner_trx_id")
	// ErrUnusedIDRefused is a payment refused as a reuse of a
	// partner_trx_id that no request had used.
	ErrUnusedIDRefused = errors.New("a payment was refused as a reuse of a partner_trx_id no request had used")
)

// CheckWave judges the payments sent with one partner_trx_id: at most one
// is created (the id is unique), and a 409 follows a use of the id: a
// payment created with it, a request whose answer was lost, or a refused
// one (the document does not say whether a refused payment uses its id,
// nor that it frees it). Which of concurrent requests is created is the
// server's to choose.
func CheckWave(w Wave) error {
	switch {
	case w.Created > 1:
		return fmt.Errorf("%w: %d created, %d refused with 409 (%s)", ErrCreatedTwice, w.Created, w.Duplicate, SentenceUniqueTrxID)
	case w.Duplicate > 0 && w.Created+w.Refused+w.Uncertain == 0:
		return fmt.Errorf("%w: %d refused with 409, and none created, refused otherwise or left without an answer (%s)",
			ErrUnusedIDRefused, w.Duplicate, SentenceUniqueTrxID)
	}
	return nil
}

// SentenceCreatedFound is the sentence CheckFound rests on.
const SentenceCreatedFound = "§4.7: \"Looks up one transaction by exactly one of these query parameters\" (partner_trx_id or transaction_number); " +
	"§7 Payment: 404 status, \"Transaction not found\": a payment answered as created is a transaction, found by its partner_trx_id; " +
	"a request refused by its answer creates none."

// The ways a status lookup can contradict the answers to the payments sent
// with the id it looks up.
var (
	// ErrCreatedNotFound is a payment answered as created that a status
	// lookup of its partner_trx_id does not find.
	ErrCreatedNotFound = errors.New("a payment answered as created is not found by its partner_trx_id")
	// ErrRefusedButCreated is a transaction found for a partner_trx_id
	// whose every request was refused by its answer.
	ErrRefusedButCreated = errors.New("a payment refused by every answer was created")
)

// CheckFound compares what a status lookup of a partner_trx_id says (found:
// a record; otherwise 404 "Transaction not found") with the answers its
// payments got (w) and how many of those were throttled before they were
// answered. A payment answered as created is found; a transaction is found
// only when a payment was answered as created or got no answer. Found with
// every answer a refusal and a throttled answer among them, the throttled
// request is the one the server processed (ErrThrottledProcessed).
func CheckFound(w Wave, throttled int, found bool) error {
	switch {
	case !found && w.Created > 0:
		return fmt.Errorf("%w: %d answered created, and the status lookup answers 404 %q (%s)", ErrCreatedNotFound, w.Created, MsgNotFound, SentenceCreatedFound)
	case !found || w.Created+w.Uncertain > 0:
		return nil
	case throttled > 0:
		return fmt.Errorf("%w: every request with the partner_trx_id was refused (%d of them with 409, %d throttled before their answer), "+
			"yet the status lookup finds the transaction (%s)", ErrThrottledProcessed, w.Duplicate, throttled, SentenceThrottle)
	}
	return fmt.Errorf("%w: every request with the partner_trx_id was refused (%d with 409, %d otherwise), yet the status lookup finds the transaction (%s)",
		ErrRefusedButCreated, w.Duplicate, w.Refused, SentenceCreatedFound)
}

// ErrNotFoundBy is a payment answered as created that a status lookup by
// one of its keys does not find.
var ErrNotFoundBy = errors.New("a payment answered as created is not found")

// CheckFoundBy checks what payment status answered when asked by key
// (partner_trx_id or transaction_number) for a payment the target answered
// as created: found, and the record is that payment's.
func CheckFoundBy(key string, created Record, found bool, record Record) error {
	if !found {
		value := created.PartnerTrxID
		if key == "transaction_number" {
			value = created.TransactionNumber
		}
		return fmt.Errorf("%w by its %s: the payment with partner_trx_id %q was answered as created with transaction_number %q, "+
			"and the status lookup of %s=%s answers 404 %q (%s)", ErrNotFoundBy, key, created.PartnerTrxID, created.TransactionNumber,
			key, value, MsgNotFound, SentenceFound)
	}
	return CheckRecordNamed(created, record)
}
