package reference

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// repairJournal starts over a damaged journal (WithRepair): it keeps a
// copy of the file as it is, logs every payment and account change from
// the damage on (they are dropped), erases them (zeros, as preallocated)
// and empties the store's state, which the caller replays again from the
// journal's intact frames.
func (s *Store) repairJournal(dir, path string, f StateFile, length int64, damage *CorruptError) error {
	end, err := lastNonZero(f, damage.Offset, length)
	if err != nil {
		return fmt.Errorf("state journal %s: repairing: %w", path, err)
	}
	copyPath, err := s.keepCopy(dir, path, f, length)
	if err != nil {
		return fmt.Errorf("state journal %s: repairing: keeping a copy: %w", path, err)
	}
	s.logger.Warn("state journal repair: kept a copy of the damaged journal", "path", path, "copy", copyPath,
		"offset", damage.Offset, "damage", damage.Reason)
	dropped, err := s.logDropped(path, f, damage.Offset, end, length)
	if err != nil {
		return fmt.Errorf("state journal %s: repairing: %w", path, err)
	}
	if _, err := writeZeros(f, damage.Offset, end-damage.Offset); err != nil {
		return fmt.Errorf("state journal %s: repairing: %w", path, err)
	}
	if err := datasync(f); err != nil {
		return fmt.Errorf("state journal %s: repairing: %w", path, err)
	}
	s.logger.Warn("state journal repaired: the damaged frame and everything after it are dropped", "path", path,
		"offset", damage.Offset, "bytes", end-damage.Offset, "payments", dropped.payments,
		"account_records", dropped.accounts, "unreadable_bytes", dropped.unreadable)
	s.resetState()
	s.replayed.accounts, s.replayed.payments = 0, 0
	return nil
}

// keepCopy copies the journal's first length bytes to a new file beside
// it, fsynced, and returns its path.
func (s *Store) keepCopy(dir, path string, f StateFile, length int64) (string, error) {
	name := path + ".damaged-" + time.Now().UTC().Format("20060102T150405.000000000Z")
	c, err := s.openFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	buf := make([]byte, 1<<20)
	for off := int64(0); off < length && err == nil; off += int64(len(buf)) {
		b := buf[:min(int64(len(buf)), length-off)]
		if _, err = f.ReadAt(b, off); err == nil {
			_, err = c.WriteAt(b, off)
		}
	}
	if err == nil {
		err = c.Sync()
	}
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(filepath.Dir(name), s.openFile)
	}
	return name, err
}

// droppedRecords counts what a repair dropped.
type droppedRecords struct{ payments, accounts, unreadable int }

// logDropped logs, at Error, every payment and account change in the
// journal's bytes [off, end): the damaged frame (read as far as it goes)
// and whatever follows it. A frame is read whole from the file (of length
// bytes), past end when its last bytes are zeros.
func (s *Store) logDropped(path string, f StateFile, off, end, length int64) (droppedRecords, error) {
	var d droppedRecords
	b := make([]byte, end-off)
	if _, err := f.ReadAt(b, off); err != nil {
		return d, err
	}
	var hdr [frameHeader]byte
	var body []byte
	for p := 0; p < len(b); {
		if _, reason, err := readFrame(f, off+int64(p), length, &hdr, &body); err != nil {
			return d, err
		} else if reason == "" || reason == checksumMismatch { // a mismatch is not intact
			at, intact := off+int64(p), reason == ""
			d.unreadable += s.logRecords(body, &d, func(pr paymentPayload, _ bool) {
				s.logger.Error("state journal repair: dropped a payment", "path", path, "frame_offset", at, "frame_intact", intact,
					"id", pr.id, "partner", pr.partner, "partner_trx_id", pr.trxID, "account", pr.account,
					"total", pr.amount.Total, "created", time.Unix(0, pr.created).In(wib).Format(time.RFC3339))
			}, func(a *account) {
				s.logger.Error("state journal repair: dropped an account change", "path", path, "frame_offset", at, "frame_intact", intact,
					"account", a.id, "partner", a.partner)
			})
			p += frameHeader + len(body)
			continue
		}
		q := bytes.Index(b[p+1:], []byte(frameMagic)) // the next frame, if any
		if q < 0 {
			q = len(b) - p - 1
		}
		d.unreadable += len(bytes.ReplaceAll(b[p:p+1+q], []byte{0}, nil))
		p += 1 + q
	}
	return d, nil
}

// logRecords calls payment and account for the records of a dropped
// frame's body that read, counting them in d, and returns the bytes that
// do not. A payment's record cut after its partner_trx_id still reads
// (whole false): its id and amounts come first.
func (s *Store) logRecords(body []byte, d *droppedRecords, payment func(pr paymentPayload, whole bool), account func(a *account)) int {
	unreadable := 0
	for rec := range records(body) {
		switch rec.typ {
		case recPayment, recStored:
			if pr, err := decodePayment(rec.payload); err == nil || (!rec.whole && pr.named) {
				d.payments++
				payment(pr, err == nil)
				continue
			}
		case recAccount:
			if a, err := decodeAccount(rec.payload); err == nil {
				d.accounts++
				account(a)
				continue
			}
		case recHeader:
			continue
		}
		unreadable += rec.size
	}
	return unreadable
}
