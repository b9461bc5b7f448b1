package record

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Merge combines the records of the shards of one distributed run into
// one record: results and ledgers are read in turn from the shards' files
// (never gathered in memory) and generator counters added;
// verdict.Judge then reconciles the ledger globally (accounts shared
// between shards included). The merged Tally counts every shard's results,
// so its percentiles are those of one run over the same results. Every
// shard 0..n-1 must be present exactly once, unless partial is true.
func Merge(shards []*Run, partial bool) (*Run, error) {
	if len(shards) == 0 {
		return nil, errors.New("merge: no shard given")
	}
	first := shards[0].Meta
	seen := map[int]bool{}
	m := &Run{Meta: first}
	m.Meta.Merged = nil
	m.Meta.Shard = Shard{Index: 0, Count: first.Shard.Count}
	reconciled := true
	var stopped []string // the shards' reconciliations the target stopped
	for _, sh := range shards {
		mt := sh.Meta
		if err := belongs(mt, first, seen); err != nil {
			return nil, err
		}
		seen[mt.Shard.Index] = true
		m.Meta.Merged = append(m.Meta.Merged, mt.Shard)
		if mt.Began.Before(m.Meta.Began) {
			m.Meta.Began = mt.Began
		}
		if mt.Ended.After(m.Meta.Ended) {
			m.Meta.Ended = mt.Ended
		}
		reconciled = reconciled && mt.Reconciled
		if mt.ReconcileStopped != "" {
			stopped = append(stopped, "shard "+mt.Shard.String()+": "+mt.ReconcileStopped)
		}
		mergeGenerator(&m.Generator, sh.Generator, len(m.Meta.Merged) == 1)
		m.add(sh)
	}
	sort.SliceStable(m.Meta.Faults, func(i, j int) bool { return m.Meta.Faults[i].Start.Before(m.Meta.Faults[j].Start) })
	if !partial && len(seen) != first.Shard.Count {
		var missing []string
		for i := range first.Shard.Count {
			if !seen[i] {
				missing = append(missing, Shard{Index: i, Count: first.Shard.Count}.String())
			}
		}
		return nil, fmt.Errorf("merge: missing shards %v (pass partial to merge anyway)", missing)
	}
	sort.Slice(m.Meta.Merged, func(i, j int) bool { return m.Meta.Merged[i].Index < m.Meta.Merged[j].Index })
	m.Meta.Reconciled = reconciled
	m.Meta.ReconcileStopped = strings.Join(stopped, "; ")
	// The shards' results are counted again, together: the histograms of
	// the shards would merge exactly, but vegeta's metrics and the charts'
	// buckets, which begin at the first shard's start, would not.
	t, err := tallyOf(m)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	m.Tally = t
	return m, nil
}

// belongs checks that the shard of meta mt belongs to the run of the
// first shard's meta, once (seen are the shards merged so far).
func belongs(mt, first Meta, seen map[int]bool) error {
	switch {
	case mt.RunID != first.RunID:
		return fmt.Errorf("merge: shard %s belongs to run %s, not %s", mt.Shard, mt.RunID, first.RunID)
	case mt.Shard.Count != first.Shard.Count:
		return fmt.Errorf("merge: shard %s does not split the run in %d", mt.Shard, first.Shard.Count)
	case mt.Scenario != first.Scenario:
		return fmt.Errorf("merge: shard %s ran scenario %s, not %s", mt.Shard, mt.Scenario, first.Scenario)
	case seen[mt.Shard.Index]:
		return fmt.Errorf("merge: shard %s given twice", mt.Shard)
	}
	return nil
}

// mergeGenerator adds the generator figures of a shard, og, to g, which
// starts from the first shard's (first): counts add up, peaks of
// different machines add up, the longest lateness and times are kept.
func mergeGenerator(g *Generator, og Generator, first bool) {
	if first {
		*g = og
		return
	}
	g.Planned += og.Planned
	g.Sent += og.Sent
	g.WorkerWaits += og.WorkerWaits
	g.ConnWaits += og.ConnWaits
	g.Abandoned += og.Abandoned
	g.PeakWorkers += og.PeakWorkers
	g.PeakInFlight += og.PeakInFlight
	g.InterruptedAfter = max(g.InterruptedAfter, og.InterruptedAfter)
	g.StoppedDryAfter = max(g.StoppedDryAfter, og.StoppedDryAfter)
	g.Sending = max(g.Sending, og.Sending)
	g.mergeBehind(og)
}

// add adds the files, faults and accounts of shard sh to the merged run m.
func (m *Run) add(sh *Run) {
	if len(m.Meta.Merged) > 1 { // the first shard's are in m.Meta already
		m.Meta.Faults = append(m.Meta.Faults, sh.Meta.Faults...)
	}
	m.parts = append(m.parts, sh.parts...)
	m.Accounts = append(m.Accounts, sh.Accounts...)
}
