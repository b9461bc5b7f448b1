package reference

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
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
	dropped, err := s.logDropped(path, f, damage.Offset, end)
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
// and whatever follows it.
func (s *Store) logDropped(path string, f StateFile, off, end int64) (droppedRecords, error) {
	var d droppedRecords
	b := make([]byte, end-off)
	if _, err := f.ReadAt(b, off); err != nil {
		return d, err
	}
	for p := 0; p < len(b); {
		if p+frameHeader <= len(b) && string(b[p:p+4]) == frameMagic {
			n := int(binary.LittleEndian.Uint32(b[p+4:]))
			if n > 0 && n <= len(b)-p-frameHeader {
				body := b[p+frameHeader : p+frameHeader+n]
				intact := crc32.Checksum(body, castagnoli) == binary.LittleEndian.Uint32(b[p+8:])
				s.logFrameDropped(path, body, off+int64(p), intact, &d)
				p += frameHeader + n
				continue
			}
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

// logFrameDropped logs the records of a dropped frame's body, as far as
// they read.
func (s *Store) logFrameDropped(path string, body []byte, at int64, intact bool, d *droppedRecords) {
	for len(body) > 0 {
		n := 0
		if len(body) >= recordHeader {
			n = int(binary.LittleEndian.Uint32(body))
		}
		if n < 1 || n > len(body)-recordHeader+1 {
			d.unreadable += len(body)
			return
		}
		typ, payload := body[4], body[recordHeader:recordHeader+n-1]
		body = body[recordHeader+n-1:]
		switch typ {
		case recPayment, recStored:
			if pr, err := decodePayment(payload); err == nil {
				d.payments++
				s.logger.Error("state journal repair: dropped a payment", "path", path, "frame_offset", at, "frame_intact", intact,
					"id", pr.id, "partner", pr.partner, "partner_trx_id", pr.trxID, "account", pr.account,
					"total", pr.amount.Total, "created", time.Unix(0, pr.created).In(wib).Format(time.RFC3339))
				continue
			}
		case recAccount:
			if a, err := decodeAccount(payload); err == nil {
				d.accounts++
				s.logger.Error("state journal repair: dropped an account change", "path", path, "frame_offset", at, "frame_intact", intact,
					"account", a.id, "partner", a.partner)
				continue
			}
		case recHeader:
			continue
		}
		d.unreadable += recordHeader + n - 1
	}
}
