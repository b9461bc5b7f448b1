package verdict

import (
	"bufio"
	"encoding/json"
	"errors"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// A ledger read from files is grouped by id in memory up to spillAfter
// entries; a longer one is first spilled to spillBuckets files by a hash
// of the id, and each bucket, which holds every request of its ids, is
// grouped and judged in turn (a bucket longer than spillAfter is spilled
// again, by another hash). Reconciliation then holds at most spillAfter
// entries at a time, not the run's.
const (
	spillAfter   = 20_000
	spillBuckets = 256
)

// eachBucket calls fn with the ledger of src in groups that each hold every
// request of their ids: all of it at once when it is in memory or short,
// bucket by bucket otherwise (spilled is then true).
// It groups at most most entries at once.
func eachBucket(src record.LedgerSource, most int, fn func([]record.Payment)) (spilled bool, err error) {
	if ps, ok := src.(record.Payments); ok {
		fn(ps)
		return false, nil
	}
	return spillEach(src, most, fn, 0)
}

// spillEach is eachBucket for a ledger read from files, whose buckets
// hash the ids with salt.
func spillEach(src record.LedgerSource, most int, fn func([]record.Payment), salt byte) (spilled bool, err error) {
	var buf []record.Payment
	var sp *spill
	defer func() {
		if sp != nil {
			err = errors.Join(err, sp.remove())
		}
	}()
	err = src.EachPayment(func(p *record.Payment) error {
		if sp != nil {
			return sp.add(p)
		}
		buf = append(buf, *p)
		if len(buf) <= most {
			return nil
		}
		var err error
		if sp, err = newSpill(salt, most); err != nil {
			return err
		}
		for i := range buf {
			if err := sp.add(&buf[i]); err != nil {
				return err
			}
		}
		buf = nil
		return nil
	})
	switch {
	case err != nil:
		return sp != nil, err
	case sp == nil:
		fn(buf)
		return false, nil
	}
	return true, sp.each(fn)
}

// spill is a ledger written to bucket files by id.
type spill struct {
	dir     string
	salt    byte
	most    int // entries a bucket may hold before it is spilled again
	files   [spillBuckets]*os.File
	writers [spillBuckets]*bufio.Writer
	counts  [spillBuckets]int
}

func newSpill(salt byte, most int) (*spill, error) {
	dir, err := os.MkdirTemp("", "loadtest-reconcile-")
	if err != nil {
		return nil, err
	}
	return &spill{dir: dir, salt: salt, most: most}, nil
}

// add writes p to its id's bucket, opening the bucket's file on its first
// entry.
func (s *spill) add(p *record.Payment) error {
	h := fnv.New32a()
	_, _ = h.Write([]byte{s.salt})
	_, _ = h.Write([]byte(p.ID))
	i := h.Sum32() % spillBuckets
	s.counts[i]++
	if s.writers[i] == nil {
		f, err := os.Create(filepath.Join(s.dir, strconv.Itoa(int(i))))
		if err != nil {
			return err
		}
		s.files[i], s.writers[i] = f, bufio.NewWriterSize(f, 16<<10)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = s.writers[i].Write(append(b, '\n'))
	return err
}

// each reads the buckets back, one at a time, and calls fn with each.
func (s *spill) each(fn func([]record.Payment)) error {
	for i, w := range s.writers {
		if w == nil {
			continue
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if _, err := s.files[i].Seek(0, 0); err != nil {
			return err
		}
		if s.counts[i] > s.most && s.salt < 255 { // ids the hash did not spread: spread them again
			if _, err := spillEach(bucket{s.files[i]}, s.most, fn, s.salt+1); err != nil {
				return err
			}
			continue
		}
		ps, err := record.ReadLedger(bufio.NewReaderSize(s.files[i], 64<<10))
		if err != nil {
			return err
		}
		fn(ps)
	}
	return nil
}

// bucket is a spilled bucket read as a ledger source.
type bucket struct{ f *os.File }

func (b bucket) EachPayment(fn func(*record.Payment) error) error {
	return record.EachLedgerEntry(bufio.NewReaderSize(b.f, 64<<10), fn)
}

// remove deletes the bucket files.
func (s *spill) remove() error {
	var errs []error
	for _, f := range s.files {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(append(errs, os.RemoveAll(s.dir))...)
}
