package verdict

import (
	"bufio"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// A ledger or history read from files is grouped in memory up to
// spillAfter entries; a longer one is first spilled to spillBuckets files
// by a hash of each entry's partition key (a ledger entry's id, a history
// operation's account), and each bucket, which holds every entry of its
// keys, is grouped and judged in turn (a bucket longer than spillAfter is
// spilled again, by another hash, unless it holds one key). Reconciliation
// and the history check then hold at most spillAfter entries at a time,
// not the run's, but for a key of more entries than that (one account's
// history), which is held whole.
const (
	spillAfter   = 20_000
	spillBuckets = 256
)

// spillKind is how entries of type T are spilled: the key that no bucket
// may split, and how an entry is written to a bucket file and read back.
type spillKind[T any] struct {
	key  func(*T) string
	each func(r io.Reader, fn func(*T) error) error // reads what json.Marshal wrote
}

// ledgerSpill spills ledger entries by partner_trx_id.
var ledgerSpill = &spillKind[record.Payment]{
	key:  func(p *record.Payment) string { return p.ID },
	each: record.EachLedgerEntry,
}

// spillEach calls fn with the entries that each calls its function with, in
// groups that each hold every entry of their keys: all at once when there
// are at most most, bucket by bucket otherwise, whose buckets hash the keys
// with salt. Each group keeps the entries' order.
func spillEach[T any](each func(func(*T) error) error, k *spillKind[T], most int, fn func([]T), salt byte) (spilled bool, err error) {
	var buf []T
	var sp *spill[T]
	defer func() {
		if sp != nil {
			err = errors.Join(err, sp.remove())
		}
	}()
	err = each(func(e *T) error {
		if sp != nil {
			return sp.add(e)
		}
		buf = append(buf, *e)
		if len(buf) <= most {
			return nil
		}
		var err error
		if sp, err = newSpill(k, salt, most); err != nil {
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

// spill is a ledger or history written to bucket files by key.
type spill[T any] struct {
	kind    *spillKind[T]
	dir     string
	salt    byte
	most    int // entries a bucket may hold before it is spilled again
	files   [spillBuckets]*os.File
	writers [spillBuckets]*bufio.Writer
	counts  [spillBuckets]int
	keys    [spillBuckets]string // a bucket's first key
	mixed   [spillBuckets]bool   // whether a bucket holds more than one key
}

func newSpill[T any](k *spillKind[T], salt byte, most int) (*spill[T], error) {
	dir, err := os.MkdirTemp("", "loadtest-spill-")
	if err != nil {
		return nil, err
	}
	return &spill[T]{kind: k, dir: dir, salt: salt, most: most}, nil
}

// add writes e to its key's bucket, opening the bucket's file on its first
// entry.
func (s *spill[T]) add(e *T) error {
	h := fnv.New32a()
	_, _ = h.Write([]byte{s.salt})
	key := s.kind.key(e)
	_, _ = h.Write([]byte(key))
	i := h.Sum32() % spillBuckets
	if s.counts[i] == 0 {
		s.keys[i] = key
	} else if key != s.keys[i] {
		s.mixed[i] = true
	}
	s.counts[i]++
	if s.writers[i] == nil {
		f, err := os.Create(filepath.Join(s.dir, strconv.Itoa(int(i))))
		if err != nil {
			return err
		}
		s.files[i], s.writers[i] = f, bufio.NewWriterSize(f, 16<<10)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = s.writers[i].Write(append(b, '\n'))
	return err
}

// each reads the buckets back, one at a time, and calls fn with each.
func (s *spill[T]) each(fn func([]T)) error {
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
		read := func(fn func(*T) error) error { return s.kind.each(bufio.NewReaderSize(s.files[i], 64<<10), fn) }
		// Keys the hash did not spread are spread again; a bucket of one key
		// (one account's long history) is read whole.
		if s.counts[i] > s.most && s.mixed[i] && s.salt < 255 {
			if _, err := spillEach(read, s.kind, s.most, fn, s.salt+1); err != nil {
				return err
			}
			continue
		}
		var es []T
		if err := read(func(e *T) error { es = append(es, *e); return nil }); err != nil {
			return err
		}
		fn(es)
	}
	return nil
}

// remove deletes the bucket files.
func (s *spill[T]) remove() error {
	var errs []error
	for _, f := range s.files {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(append(errs, os.RemoveAll(s.dir))...)
}
