package record

import (
	"fmt"
	"strconv"
	"strings"
)

// maxShards bounds n in a shard i/n so that the shard takes at most 4 digits.
const maxShards = 9999

// Shard is one machine's part of a distributed run: Index in [0, Count).
// Each shard draws partner_trx_ids from its own disjoint space and uses its
// own accounts.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// SingleShard is the shard of a run on one machine.
var SingleShard = Shard{Index: 0, Count: 1}

// String formats s as "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Set parses "i/n" into s: a *Shard is a flag.
func (s *Shard) Set(v string) error {
	sh, err := ParseShard(v)
	if err == nil {
		*s = sh
	}
	return err
}

// ParseShard parses "i/n" with 0 ≤ i < n ≤ 9999.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want i/n, for example 0/4", s)
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: i and n must be integers", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Validate()
}

// Validate reports whether s is a usable shard.
func (s Shard) Validate() error {
	if s.Count < 1 || s.Count > maxShards {
		return fmt.Errorf("shard %s: n must be between 1 and %d", s, maxShards)
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %s: i must be between 0 and n-1", s)
	}
	return nil
}
