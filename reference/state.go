package reference

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/partnercommerce/conformance/reference/storage"
)

// The state directory's types, which reference/storage defines.
type (
	// StateFile is an open file of a state directory; *os.File is one.
	// Tests wrap it to make a write or an fsync fail.
	StateFile = storage.File
	// OpenFunc opens a file of a state directory (os.OpenFile's
	// signature).
	OpenFunc = storage.OpenFunc
	// CorruptError is a journal whose frames cannot all be read, and whose
	// damage is not a torn last write: the store refuses to start rather
	// than serve the state before the damage (unless WithRepair).
	CorruptError = storage.CorruptError
	// Commit is one group commit of the journal (WithCommitObserver).
	Commit = storage.Commit
)

// JournalName is the journal's file name in a state directory.
const JournalName = storage.JournalName

// WithState keeps the store's state in directory dir: every change is
// written to a journal there and fsynced before the request that made it is
// answered, and a store built over the same directory (with the same data
// set and transition times) starts with the state the journal holds.
// The directory is created 0700 and its files 0600: they hold tokens.
func WithState(dir string) Option { return func(s *Store) { s.stateDir = dir } }

// WithRepair lets a start over a damaged journal (a *CorruptError) go on:
// it keeps a copy of the journal as it was beside it
// (journal.damaged-TIME), logs every payment and account change it drops,
// by id, and erases the damaged frame and everything after it. Without it
// such a start is refused.
func WithRepair() Option { return func(s *Store) { s.repair = true } }

// WithStateFiles sets how the store opens the files of its state directory
// (default os.OpenFile). Tests wrap the files to make a write or an fsync
// fail.
func WithStateFiles(open OpenFunc) Option { return func(s *Store) { s.openFile = open } }

// WithCommitObserver calls observe after each commit of the journal
// (WithState), from the journal's goroutine, as the commit's requests are
// woken: observe must be quick (a histogram's). Without a state directory
// there is no commit.
func WithCommitObserver(observe func(Commit)) Option {
	return func(s *Store) { s.observeCommit = observe }
}

// compactAfter is how many superseded account records a journal must hold,
// and more than it holds payments, before a start compacts it.
const compactAfter = 1000

// openState opens (or creates) the state directory, replays its journal
// into the store, which holds the data set's state, and starts the
// journal. The caller owns s.
func (s *Store) openState(ds *Dataset) error {
	if len(s.faults) > 0 {
		return errors.New("reference: faults are not combined with a state directory (the journal records only the document's changes)")
	}
	s.header = s.headerRecord(ds)
	j, err := storage.Open(storage.Options{
		Dir: s.stateDir, Open: s.openFile, Repair: s.repair, Logger: s.logger,
		Header: s.header, Observe: s.observeCommit, Mu: &s.mu, Counts: droppedCounts,
	}, journaled{s})
	if err != nil {
		return err
	}
	s.journal = j
	return nil
}

// Close releases the state directory: later requests fail. Without a state
// directory it does nothing.
func (s *Store) Close() error {
	if s.journal == nil {
		return nil
	}
	return s.journal.Close()
}

// journaled is the store as the journal's domain (storage.Domain): what
// its records mean.
type journaled struct{ s *Store }

var _ storage.Domain = journaled{}

// Apply applies a frame's records; header says the frame must be the
// journal's header.
func (j journaled) Apply(body []byte, header bool) error {
	s := j.s
	for rec, err := range storage.Records(body) {
		if err != nil {
			return err
		}
		if header != (rec.Type == recHeader) {
			return errors.New("the journal does not begin with its header")
		}
		switch rec.Type {
		case recHeader:
			err = s.checkHeader(rec.Payload)
		case recAccount:
			err = s.applyAccount(rec.Payload)
		case recPayment, recStored:
			err = s.applyPayment(rec.Payload, rec.Type == recPayment)
		default:
			err = fmt.Errorf("unknown record type %q", rec.Type)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Reset empties the state to the data set's, as a repair starts over.
// The caller owns s or holds s.mu.
func (j journaled) Reset() {
	j.s.resetState()
	j.s.replayed.accounts, j.s.replayed.payments = 0, 0
}

// The counts of the records a start drops, as the log names them
// (storage.Options.Counts).
var droppedCounts = []string{"payments", "account_records"}

const (
	droppedPayments = iota
	droppedAccounts
)

// Dropped logs a record the start drops: a payment or an account change of
// the torn last frame at Warn (none was acknowledged, but an operator
// looking for a payment needs its id; a payment's record cut after its
// partner_trx_id still reads, as its id and amounts come first), or one a
// repair drops at Error.
func (j journaled) Dropped(at storage.Drop, rec storage.Record) int {
	l := j.s.logger
	switch rec.Type {
	case recPayment, recStored:
		pr, err := decodePayment(rec.Payload)
		if err != nil && (rec.Whole || !pr.named) {
			return storage.Unreadable
		}
		if at.Torn {
			l.Warn("state journal: the torn last frame held a payment, never acknowledged (the crash stopped its write); it is dropped",
				"path", at.Path, "frame_offset", at.FrameOffset, "id", pr.id, "partner", pr.partner, "partner_trx_id", pr.trxID,
				"account", pr.account, "total", pr.amount.Total, "record_whole", err == nil)
		} else {
			l.Error("state journal repair: dropped a payment", "path", at.Path, "frame_offset", at.FrameOffset, "frame_intact", at.FrameIntact,
				"id", pr.id, "partner", pr.partner, "partner_trx_id", pr.trxID, "account", pr.account,
				"total", pr.amount.Total, "created", time.Unix(0, pr.created).In(wib).Format(time.RFC3339))
		}
		return droppedPayments
	case recAccount:
		a, err := decodeAccount(rec.Payload)
		if err != nil {
			return storage.Unreadable
		}
		if at.Torn {
			l.Warn("state journal: the torn last frame held an account change, never acknowledged; it is dropped",
				"path", at.Path, "frame_offset", at.FrameOffset, "account", a.id, "partner", a.partner)
		} else {
			l.Error("state journal repair: dropped an account change", "path", at.Path, "frame_offset", at.FrameOffset, "frame_intact", at.FrameIntact,
				"account", a.id, "partner", a.partner)
		}
		return droppedAccounts
	case recHeader:
		return storage.Uncounted
	}
	return storage.Unreadable
}

// Replayed says what the start replayed, for its log.
func (j journaled) Replayed() []any {
	return []any{"account_records", j.s.replayed.accounts, "payments", j.s.replayed.payments}
}

// Compaction says a journal is due for compaction when it holds more than
// compactAfter superseded account records, and more than payments.
func (j journaled) Compaction() []any {
	s := j.s
	if dead := s.replayed.accounts - len(s.accounts); dead > compactAfter && dead > s.replayed.payments {
		return []any{"superseded_account_records", dead}
	}
	return nil
}

// State writes the state as the journal a compaction keeps: every account
// as it is (its wallet included) and every payment as a record that
// debits nothing. The caller owns s.
func (j journaled) State(add func(rec []byte)) {
	s := j.s
	ids := make([]int64, 0, len(s.accounts))
	for id := range s.accounts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		add(s.accountRecord(s.accounts[id]))
	}
	for i := uint32(len(s.seedTxs)); i < s.txs.n; i++ {
		add(s.paymentRecord(i, recStored))
	}
}
