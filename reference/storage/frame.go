// Package storage keeps a state in a directory: a journal of frames, each
// a group of records written with one write and one fdatasync, replayed at
// the start, its torn last write dropped and its damage refused (or
// repaired), compacted when the domain asks; the directory's lock and its
// files. It knows nothing of what the records mean: the domain encodes
// them, applies a frame's and says what a dropped one was (Domain).
package storage

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"iter"
)

// Why a frame does not read whole at an offset.
const (
	noFrame          = "no frame starts here"
	impossibleLength = "impossible frame length"
	shortHeader      = "incomplete frame header"
	shortFrame       = "incomplete frame"
	checksumMismatch = "checksum mismatch"
)

// frameLength returns the body length the frame header hdr claims, or why
// no frame's header is there: noFrame (hdr does not begin with the magic)
// or impossibleLength (zero, or longer than the reader accepts).
func frameLength(hdr []byte) (int64, string) {
	n := int64(binary.LittleEndian.Uint32(hdr[4:]))
	switch {
	case string(hdr[:4]) != FrameMagic:
		return 0, noFrame
	case n == 0 || n > maxFrameRead:
		return 0, impossibleLength
	}
	return n, ""
}

// readFrame reads the frame at off into body and returns its body's
// length, or why it does not read whole. On a checksum mismatch body
// holds the frame's body all the same (its bytes are all there).
func readFrame(r io.ReaderAt, off, size int64, hdr *[FrameHeader]byte, body *[]byte) (int64, string, error) {
	if size-off < FrameHeader {
		return 0, shortHeader, nil
	}
	if _, err := r.ReadAt(hdr[:], off); err != nil {
		return 0, "", err
	}
	n, reason := frameLength(hdr[:])
	switch {
	case reason != "":
		return 0, reason, nil
	case off+FrameHeader+n > size:
		return 0, shortFrame, nil
	}
	if int64(cap(*body)) < n {
		*body = make([]byte, n)
	}
	*body = (*body)[:n]
	if _, err := r.ReadAt(*body, off+FrameHeader); err != nil {
		return 0, "", err
	}
	if crc32.Checksum(*body, castagnoli) != binary.LittleEndian.Uint32(hdr[8:]) {
		return n, checksumMismatch, nil
	}
	return n, "", nil
}

// Record is one record of a frame's body.
type Record struct {
	Type    byte   // 0 when its header does not read
	Payload []byte // as much of it as the body holds
	Size    int    // the body's bytes it spans, its header included
	Whole   bool   // its bytes are all in the body
}

// Why a record does not read whole.
var (
	errRecordHeaderCut = errors.New("a record header is cut")
	errRecordLength    = errors.New("a record's length exceeds its frame")
)

// Records walks a frame's body record by record. The first record that
// does not read whole ends the walk, yielded with the reason: its bytes
// run to the body's end (Size), and when its length is not zero and its
// header reads, its type and the part of its payload the body holds.
func Records(body []byte) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for len(body) > 0 {
			if len(body) < RecordHeader {
				yield(Record{Size: len(body)}, errRecordHeaderCut)
				return
			}
			n := int(binary.LittleEndian.Uint32(body))
			if n < 1 {
				yield(Record{Size: len(body)}, errRecordLength)
				return
			}
			if n > len(body)-RecordHeader+1 {
				yield(Record{Type: body[4], Payload: body[RecordHeader:], Size: len(body)}, errRecordLength)
				return
			}
			k := RecordHeader - 1 + n
			if !yield(Record{Type: body[4], Payload: body[RecordHeader:k], Size: k, Whole: true}, nil) {
				return
			}
			body = body[k:]
		}
	}
}

// SealRecord fills in the record header of b, which begins with
// RecordHeader reserved bytes, and returns b: a record of type typ.
func SealRecord(b []byte, typ byte) []byte {
	binary.LittleEndian.PutUint32(b, uint32(len(b)-RecordHeader+1))
	b[4] = typ
	return b
}

// writeFrame fills in the header of frame, which begins with FrameHeader
// reserved bytes, and writes it at off.
func writeFrame(f File, frame []byte, off int64) error {
	copy(frame, FrameMagic)
	binary.LittleEndian.PutUint32(frame[4:], uint32(len(frame)-FrameHeader))
	binary.LittleEndian.PutUint32(frame[8:], crc32.Checksum(frame[FrameHeader:], castagnoli))
	_, err := f.WriteAt(frame, off) // WriteAt fails on a short write
	return err
}
