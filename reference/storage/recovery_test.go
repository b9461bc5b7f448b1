package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testFrame is a frame of body, as the journal writes it.
func testFrame(body []byte) []byte {
	f := append(make([]byte, FrameHeader), body...)
	copy(f, FrameMagic)
	binary.LittleEndian.PutUint32(f[4:], uint32(len(body)))
	binary.LittleEndian.PutUint32(f[8:], crc32.Checksum(body, castagnoli))
	return f
}

// TestJudgeTail tells torn last writes from damage on files made by hand:
// a frame at off (after off bytes of frames), then zeros.
func TestJudgeTail(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte("catatan pembayaran "), 80) // 1,520 bytes, no zeros
	place := func(off int, frame []byte, size int) []byte {
		file := bytes.Repeat([]byte{'x'}, off) // stands for the frames before
		file = append(file, frame...)
		return append(file, make([]byte, max(0, size-len(file)))...)
	}
	for name, tc := range map[string]struct {
		off  int
		file func(off int) []byte
		torn string // "" : damage
		says string // in the torn reason, or in what follows the damage
	}{
		"a whole last frame, a byte changed": {100, func(off int) []byte {
			f := place(off, testFrame(body), 8192)
			f[off+700] ^= 1
			return f
		}, "", "it is the last frame and whole"},
		"the file ends inside the frame":  {100, func(off int) []byte { return place(off, testFrame(body)[:900], 0) }, "the file ends inside it", ""},
		"the file ends inside the header": {100, func(off int) []byte { return place(off, testFrame(body)[:7], 0) }, "the file ends inside its header", ""},
		"a sector of the frame never written": {100, func(off int) []byte {
			f := place(off, testFrame(body), 8192)
			clear(f[512:1024])
			return f
		}, "the sector at offset 512 was never written", ""},
		"the frame's sectors after its first never written": {100, func(off int) []byte {
			f := place(off, testFrame(body), 8192)
			clear(f[512:])
			return f
		}, "the sector at offset 512 was never written", ""},
		"the header's second sector never written": {506, func(off int) []byte {
			f := place(off, testFrame(body), 8192)
			clear(f[512:])
			return f
		}, "its header's sector at offset 512 was never written", ""},
		"the header's first sector never written": {506, func(off int) []byte {
			f := place(off, testFrame(body), 8192)
			clear(f[off:512])
			return f
		}, "its header's sector at offset 506 was never written", ""},
		"a few zero bytes at the frame's end, another byte changed": {100, func(off int) []byte {
			b := append(bytes.Clone(body[:1024-off-FrameHeader]), 0, 0, 0)
			f := place(off, testFrame(b), 8192) // ends 3 zero bytes after the boundary at 1024
			f[off+50] ^= 1
			return f
		}, "", "it is the last frame and whole"},
		"an intact frame ending in zero bytes after the damage": {100, func(off int) []byte {
			f := place(off, append(testFrame(body), testFrame([]byte("berikutnya\x00\x00"))...), 8192)
			f[off+700] ^= 1
			return f
		}, "", fmt.Sprintf("an intact frame follows at offset %d", 100+FrameHeader+len(body))},
		"an intact frame after the damage": {100, func(off int) []byte {
			f := place(off, append(testFrame(body), testFrame([]byte("berikutnya"))...), 8192)
			f[off+700] ^= 1
			return f
		}, "", fmt.Sprintf("an intact frame follows at offset %d", 100+FrameHeader+len(body))},
		"bytes after 2 MiB of zeros": {100, func(off int) []byte {
			f := place(off, nil, 3<<20)
			copy(f[off+2<<20:], "tidak nol")
			return f
		}, "", fmt.Sprintf("%d zero bytes, then non-zero bytes from offset %d", 2<<20, 100+2<<20)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			file := tc.file(tc.off)
			r := bytes.NewReader(file)
			end, err := lastNonZero(r, int64(tc.off), int64(len(file)))
			require.NoError(t, err)
			got, follows, err := judgeTail(r, int64(tc.off), end, int64(len(file)), "checksum mismatch")
			require.NoError(t, err)
			assert.Equal(t, tc.torn, got.torn)
			if tc.torn == "" {
				assert.Contains(t, follows, tc.says)
			}
		})
	}
}

func TestFrameCutKeepsWholeRecordsUpToMaxFrame(t *testing.T) {
	t.Parallel()
	rec := func(n int) []byte { // a record of n type and payload bytes
		b := make([]byte, RecordHeader-1+n)
		binary.LittleEndian.PutUint32(b, uint32(n))
		return b
	}
	half := rec(MaxFrame / 2)
	three := slices.Concat(half, half, half)
	assert.Equal(t, len(half), frameCut(three), "two halves and their headers exceed MaxFrame")
	small := rec(10)
	assert.Equal(t, 2*len(small), frameCut(slices.Concat(small, small)), "all of a short body")
	big := rec(2 * MaxFrame)
	assert.Equal(t, len(big), frameCut(slices.Concat(big, small)), "a larger record is a frame of its own")
	assert.Equal(t, len(half)+len(small), frameCut(slices.Concat(half, small, half)))
}
