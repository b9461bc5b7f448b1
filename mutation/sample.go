package mutation

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"
)

// Order returns the mutants in the order a run with seed tries them: by a
// rank drawn from the seed and the mutant's identity alone (SHA-256 of
// both), so that the order is the same on every machine for the same
// source, and a change of one file moves only that file's mutants in or
// out of a sample. A run tries them in this order until it has its number
// of viable ones.
func Order(ms []Mutant, seed uint64) []Mutant {
	type ranked struct {
		rank uint64
		id   string
		m    Mutant
	}
	rs := make([]ranked, len(ms))
	for i, m := range ms {
		rs[i] = ranked{rank: rank(seed, m.Key), id: m.ID(), m: m}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.id, b.id))
	})
	out := make([]Mutant, len(rs))
	for i, r := range rs {
		out[i] = r.m
	}
	return out
}

func rank(seed uint64, k Key) uint64 {
	k = k.normal()
	h := sha256.New()
	for _, s := range []string{strconv.FormatUint(seed, 10), k.File, k.Func, k.Original, k.Mutated, strconv.Itoa(k.Occurrence)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return binary.BigEndian.Uint64(h.Sum(nil))
}
