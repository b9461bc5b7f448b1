package loadtest

import (
	"crypto/rand"
	"fmt"
	"strconv"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// maxTrxIDLen is the longest partner_trx_id the API accepts (document §8).
const maxTrxIDLen = 50

// maxRunIDLen bounds the run id so that every partner_trx_id fits in
// maxTrxIDLen: run id (20) + "-" + shard (4) + "-" + sequence (≤ 20) = 46.
const maxRunIDLen = 20

// NewRunID returns a fresh run id: the UTC time to the second in base 36
// followed by four random base-36 characters, lower case, no dashes.
func NewRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	suffix := make([]byte, 4)
	for i := range suffix {
		suffix[i] = digits[int(b[i])%len(digits)]
	}
	return strconv.FormatInt(time.Now().UTC().Unix(), 36) + string(suffix)
}

// ValidateRunID reports whether id can be embedded in partner_trx_ids:
// 1 to 20 characters of [a-z0-9].
func ValidateRunID(id string) error {
	if id == "" || len(id) > maxRunIDLen {
		return fmt.Errorf("run id %q: want 1 to %d characters", id, maxRunIDLen)
	}
	for _, c := range id {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return fmt.Errorf("run id %q: only a-z and 0-9 are allowed", id)
		}
	}
	return nil
}

// idSource generates the partner_trx_ids of one shard of one run. An id is
// "<run>-<shard index>-<sequence>"; the run id has no dash, so two shards (or
// two runs) can never produce the same id, and each id is at most 46
// characters long.
type idSource struct {
	run    string
	shard  record.Shard
	prefix string // "<run>-<shard index>-"
}

// newIDs returns the id generator of shard s of run.
func newIDs(run string, s record.Shard) (idSource, error) {
	if err := ValidateRunID(run); err != nil {
		return idSource{}, err
	}
	if err := s.Validate(); err != nil {
		return idSource{}, err
	}
	return idSource{run: run, shard: s, prefix: run + "-" + strconv.Itoa(s.Index) + "-"}, nil
}

// ID returns the partner_trx_id of sequence number seq.
func (g idSource) ID(seq uint64) string {
	var b [64]byte // one allocation: the string
	return string(strconv.AppendUint(append(b[:0], g.prefix...), seq, 10))
}

// msisdn returns a valid Indonesian destination number (08, 12 digits)
// derived from seq.
func msisdn(seq uint64) string {
	return fmt.Sprintf("0812%08d", seq%100_000_000)
}

// operatorNumber returns a destination number of operator, chosen by h: one
// of the operator's prefixes and 8 digits (12 digits in all, the document's
// format; the prefixes of contract.PrefixesOrDefault).
func operatorNumber(operator string, h uint64) string {
	return prefixedNumber(contract.PrefixesOrDefault(operator), h)
}

// prefixedNumber is operatorNumber given the operator's prefixes.
func prefixedNumber(prefixes []string, h uint64) string {
	// The prefix and 8 digits, zero-padded, in one allocation.
	var b [16]byte
	n := append(b[:0], prefixes[int(h%uint64(len(prefixes)))]...)
	digits := (h >> 8) % 100_000_000
	for i := 7; i >= 0; i-- {
		b[len(n)+i] = byte('0' + digits%10)
		digits /= 10
	}
	return string(b[:len(n)+8])
}
