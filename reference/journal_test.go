package reference

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
	"github.com/partnercommerce/conformance/reference/storage"
)

// script decides the fate of each write and fsync of a journal opened
// through it: fail is asked before each, with what it is ("frame": a
// frame's write, "zeros": the zeros preallocated ahead, "sync") and how many
// of that kind came before, and returns the error to fail it with (nil: it
// succeeds). A failed write writes half its bytes first, as a full disk
// cuts a write short. fail may block, to hold the journal at that point.
type script struct {
	started atomic.Bool
	mu      sync.Mutex
	counts  map[string]int
	fail    func(op string, n int) error
}

// newScript is a script that lets every write and fsync succeed until
// start.
func newScript(fail func(op string, n int) error) *script {
	return &script{counts: map[string]int{}, fail: fail}
}

func (sc *script) start() { sc.started.Store(true) }

func (sc *script) next(op string) error {
	if !sc.started.Load() {
		return nil
	}
	sc.mu.Lock()
	n := sc.counts[op]
	sc.counts[op]++
	sc.mu.Unlock()
	return sc.fail(op, n)
}

// open opens the files of a state directory, the journal through sc.
func (sc *script) open(name string, flag int, perm fs.FileMode) (StateFile, error) {
	f, err := storage.OpenFile(name, flag, perm)
	if err != nil || filepath.Base(name) != JournalName {
		return f, err
	}
	return scriptedFile{StateFile: f, sc: sc}, nil
}

type scriptedFile struct {
	StateFile
	sc *script
}

func (f scriptedFile) WriteAt(p []byte, off int64) (int, error) {
	op := "frame"
	if bytes.Count(p, []byte{0}) == len(p) {
		op = "zeros"
	}
	if err := f.sc.next(op); err != nil {
		n, _ := f.StateFile.WriteAt(p[:len(p)/2], off)
		return n, err
	}
	return f.StateFile.WriteAt(p, off)
}

func (f scriptedFile) Sync() error {
	if err := f.sc.next("sync"); err != nil {
		return err
	}
	return f.StateFile.Sync()
}

// TestJournalFailedFrameIsNeverReportedDurable holds the journal at each
// moment of a failed frame's undoing and asks, as a request that comes
// late would (one preempted between its append and its wait, or one that
// read the frame's payment), for the outcome of the frame's record and of
// a record appended meanwhile: the answer is a channel to wait on or
// storage.ErrNotDurable, never success, at every moment; afterwards it is
// storage.ErrNotDurable.
func TestJournalFailedFrameIsNeverReportedDurable(t *testing.T) {
	t.Parallel()
	var armed atomic.Bool
	syncing, release := make(chan struct{}), make(chan struct{})
	sc := newScript(func(op string, _ int) error {
		if op == "sync" && armed.CompareAndSwap(true, false) {
			close(syncing)
			<-release
			return syscall.ENOSPC
		}
		return nil
	})
	s := mustOpenState(t, t.TempDir(), referencetest.NewClockAtT0(), WithStateFiles(sc.open))
	sc.start()
	c := caller(t, s, referencetest.KeyNusantara, loadToken)
	_, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "late-before", true, false))
	require.NoError(t, err)

	armed.Store(true)
	answered := make(chan error, 1)
	go func() {
		_, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "late-a", true, false))
		answered <- err
	}()
	<-syncing // the frame of late-a is written; its fdatasync is about to fail
	// A request holds the store's lock, which the undoing needs, and
	// appends a record meanwhile.
	s.mu.Lock()
	endA := s.journal.End()
	endB := s.journal.Append(s.accountRecord(s.accounts[c.AccountID]))
	close(release)
	judged := map[string]uint64{"the failed frame's record": endA, "a record appended meanwhile": endB}
	var durable []string // reported durable while the frame was being undone
	for deadline := time.Now().Add(200 * time.Millisecond); time.Now().Before(deadline) && len(judged) > 0; runtime.Gosched() {
		for what, end := range judged {
			if done, err := s.journal.Poll(end); done == nil {
				if err == nil {
					durable = append(durable, what)
				}
				delete(judged, what)
			}
		}
	}
	s.mu.Unlock()
	require.Empty(t, durable, "reported durable while its frame was being undone")
	require.ErrorIs(t, <-answered, ErrInternal)
	require.ErrorIs(t, s.journal.Wait(endA), storage.ErrNotDurable)
	require.ErrorIs(t, s.journal.Wait(endB), storage.ErrNotDurable)
	_, err = s.PaymentStatus(c, StatusQuery{PartnerTrxID: ptr("late-a")})
	require.ErrorIs(t, err, ErrTrxNotFound)
	_, err = s.CreatePayment(c, payIn(1002, "081234567890", 0, "late-after", true, false))
	require.NoError(t, err, "the journal goes on")
}

// TestJournalFailuresUnderConcurrentPayments fails writes and fsyncs at
// chosen moments (ENOSPC in the middle of a frame, on its fdatasync, on
// the write after a good one) while payments and reads of them run from
// many goroutines. Then, through the store and again after a restart
// (through the journal): every payment answered 200 exists exactly once,
// none answered 500 exists, every payment a read answered with exists, and
// the wallet is the data set's minus the payments that exist.
func TestJournalFailuresUnderConcurrentPayments(t *testing.T) {
	t.Parallel()
	for name, fail := range map[string]func(op string, n int) error{
		"ENOSPC in the middle of a frame": func(op string, n int) error {
			return failIf(op == "frame" && n%3 == 2, syscall.ENOSPC)
		},
		"ENOSPC on fdatasync": func(op string, n int) error {
			return failIf(op == "sync" && n%3 == 2, syscall.ENOSPC)
		},
		"the write after a good one": func(op string, n int) error {
			return failIf(op == "frame" && n%2 == 1, syscall.ENOSPC)
		},
		"EIO at random": func(op string, n int) error {
			return failIf(op != "zeros" && rand.IntN(4) == 0, syscall.EIO) //nolint:gosec // a test's coin
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, clock := t.TempDir(), referencetest.NewClockAtT0()
			sc := newScript(fail)
			s := mustOpenState(t, dir, clock, WithStateFiles(sc.open))
			sc.start()
			answers := payUnderReads(t, s, 16, 30)
			require.Positive(t, answers.failed, "a write failed")
			require.Positive(t, len(answers.ok), "a write succeeded")
			checkAnswers(t, s, answers)
			require.NoError(t, s.Close())
			checkAnswers(t, mustOpenState(t, dir, clock), answers)
		})
	}
}

func failIf(cond bool, err error) error {
	if cond {
		return err
	}
	return nil
}

// loadToken is the account the concurrent tests pay from (a wallet no
// test exhausts).
const loadToken = "tok-nusantara-load-1"

// paymentAnswers are what payUnderReads's requests were answered.
type paymentAnswers struct {
	ok      []string        // payments answered 200
	failed  int             // payments answered 500
	refused map[string]bool // payments answered 500, by partner_trx_id
	read    map[string]bool // payments a read answered 200 with
}

// payUnderReads makes workers*each payments from workers goroutines while
// two more read them back (payment status, profile) as soon as they are
// sent. A payment answers 200 or 500, nothing else.
func payUnderReads(t *testing.T, s *Store, workers, each int) paymentAnswers {
	t.Helper()
	c := caller(t, s, referencetest.KeyNusantara, loadToken)
	a := paymentAnswers{refused: map[string]bool{}, read: map[string]bool{}}
	var mu sync.Mutex
	var sent []string
	var wg, writers sync.WaitGroup
	for w := range workers {
		writers.Go(func() {
			for n := range each {
				id := fmt.Sprintf("cf-%d-%d", w, n)
				mu.Lock()
				sent = append(sent, id)
				mu.Unlock()
				_, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, id, true, false))
				mu.Lock()
				if err == nil {
					a.ok = append(a.ok, id)
				} else {
					assert.ErrorIs(t, err, ErrInternal, id)
					a.failed++
					a.refused[id] = true
				}
				mu.Unlock()
			}
		})
	}
	stop := make(chan struct{})
	for r := range 2 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				if len(sent) == 0 {
					mu.Unlock()
					runtime.Gosched()
					continue
				}
				id := sent[len(sent)-1-(i+r)%min(len(sent), 8)] // one of the latest
				mu.Unlock()
				if _, err := s.PaymentStatus(c, StatusQuery{PartnerTrxID: &id}); err == nil {
					mu.Lock()
					a.read[id] = true
					mu.Unlock()
				} else if !errors.Is(err, ErrTrxNotFound) {
					assert.ErrorIs(t, err, ErrInternal, id)
				}
				if _, err := s.Profile(c); err != nil {
					assert.ErrorIs(t, err, ErrInternal)
				}
			}
		})
	}
	writers.Wait()
	close(stop)
	wg.Wait()
	return a
}

// checkAnswers checks a store against what its requests were answered:
// every payment answered 200, or read, exists exactly once, none answered
// 500 exists, and the wallet is the data set's minus the payments that
// exist.
func checkAnswers(t *testing.T, s *Store, a paymentAnswers) {
	t.Helper()
	c := caller(t, s, referencetest.KeyNusantara, loadToken)
	for _, id := range a.ok {
		_, err := s.PaymentStatus(c, StatusQuery{PartnerTrxID: ptr(id)})
		assert.NoError(t, err, "payment %s answered 200", id)
	}
	for id := range a.read {
		_, err := s.PaymentStatus(c, StatusQuery{PartnerTrxID: ptr(id)})
		assert.NoError(t, err, "payment %s was read", id)
	}
	for id := range a.refused {
		_, err := s.PaymentStatus(c, StatusQuery{PartnerTrxID: ptr(id)})
		assert.ErrorIs(t, err, ErrTrxNotFound, "payment %s answered 500", id)
	}
	s.mu.Lock()
	seen := map[string]int{}
	var used int64
	for i := range s.txs.n {
		if r := s.txs.at(i); r.account == c.AccountID {
			seen[s.txs.trxID(i)]++
			used += r.amount.BalanceUsed
		}
	}
	balance := s.accounts[c.AccountID].balance
	s.mu.Unlock()
	for id, n := range seen {
		assert.Equal(t, 1, n, "payment %s is stored %d times", id, n)
	}
	assert.Len(t, seen, len(a.ok), "the payments that exist are those answered 200")
	var seed int64
	for _, acc := range mustDataset(t).Accounts {
		if acc.Token == loadToken {
			seed = acc.Balance
		}
	}
	assert.Equal(t, seed-used, balance, "the wallet is the data set's minus the payments that exist")
}
