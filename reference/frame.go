package reference

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
	case string(hdr[:4]) != frameMagic:
		return 0, noFrame
	case n == 0 || n > maxFrameRead:
		return 0, impossibleLength
	}
	return n, ""
}

// readFrame reads the frame at off into body and returns its body's
// length, or why it does not read whole. On a checksum mismatch body
// holds the frame's body all the same (its bytes are all there).
func readFrame(r io.ReaderAt, off, size int64, hdr *[frameHeader]byte, body *[]byte) (int64, string, error) {
	if size-off < frameHeader {
		return 0, shortHeader, nil
	}
	if _, err := r.ReadAt(hdr[:], off); err != nil {
		return 0, "", err
	}
	n, reason := frameLength(hdr[:])
	switch {
	case reason != "":
		return 0, reason, nil
	case off+frameHeader+n > size:
		return 0, shortFrame, nil
	}
	if int64(cap(*body)) < n {
		*body = make([]byte, n)
	}
	*body = (*body)[:n]
	if _, err := r.ReadAt(*body, off+frameHeader); err != nil {
		return 0, "", err
	}
	if crc32.Checksum(*body, castagnoli) != binary.LittleEndian.Uint32(hdr[8:]) {
		return n, checksumMismatch, nil
	}
	return n, "", nil
}

// record is one record of a frame's body.
type record struct {
	typ     byte   // 0 when its header does not read
	payload []byte // as much of it as the body holds
	size    int    // the body's bytes it spans, its header included
	whole   bool   // its bytes are all in the body
}

// Why a record does not read whole.
var (
	errRecordHeaderCut = errors.New("a record header is cut")
	errRecordLength    = errors.New("a record's length exceeds its frame")
)

// records walks a frame's body record by record. The first record that
// does not read whole ends the walk, yielded with the reason: its bytes
// run to the body's end (size), and when its length is not zero and its
// header reads, its type and the part of its payload the body holds.
func records(body []byte) iter.Seq2[record, error] {
	return func(yield func(record, error) bool) {
		for len(body) > 0 {
			if len(body) < recordHeader {
				yield(record{size: len(body)}, errRecordHeaderCut)
				return
			}
			n := int(binary.LittleEndian.Uint32(body))
			if n < 1 {
				yield(record{size: len(body)}, errRecordLength)
				return
			}
			if n > len(body)-recordHeader+1 {
				yield(record{typ: body[4], payload: body[recordHeader:], size: len(body)}, errRecordLength)
				return
			}
			k := recordHeader - 1 + n
			if !yield(record{typ: body[4], payload: body[recordHeader:k], size: k, whole: true}, nil) {
				return
			}
			body = body[k:]
		}
	}
}
