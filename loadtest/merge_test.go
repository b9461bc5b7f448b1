package loadtest_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
)

// runShards runs n shards of one run concurrently against p, as n machines
// would, and writes each shard's artifacts into its own directory.
func runShards(t *testing.T, p *profiles.Profile, n int, opts ...loadtest.Option) []string {
	t.Helper()
	root := t.TempDir()
	run := loadtest.NewRunID()
	dirs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		dirs[i] = filepath.Join(root, "shard", string(rune('0'+i)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			all := append([]loadtest.Option{loadtest.WithRunID(run), loadtest.WithShard(record.Shard{Index: i, Count: n})}, opts...)
			rec, err := newTester(p, all...).Run(ctx, t.TempDir())
			if err != nil {
				errs[i] = err
				return
			}
			v, err := verdict.Judge(rec, verdict.DefaultHistoryTimeout)
			if err != nil {
				errs[i] = err
				return
			}
			errs[i] = report.WriteArtifacts(dirs[i], rec, report.BuildReport(rec, v, nil))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	return dirs
}

func readAll(t *testing.T, dirs []string) []*record.Run {
	t.Helper()
	var outs []*record.Run
	for _, d := range dirs {
		rec, err := record.ReadDir(d)
		require.NoError(t, err)
		outs = append(outs, rec)
	}
	return outs
}

func TestTwoShardsMerge(t *testing.T) {
	t.Parallel()
	p := startReference(t)
	dirs := runShards(t, p, 2, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(50, time.Second)))
	outs := readAll(t, dirs)

	// Disjoint ids and disjoint accounts.
	ids := map[string]int{}
	accts := map[string]int{}
	for _, rec := range outs {
		for _, p := range ledgerOf(t, rec) {
			prev, dup := ids[p.ID]
			assert.False(t, dup, "%s in shards %d and %d", p.ID, prev, rec.Meta.Shard.Index)
			ids[p.ID] = rec.Meta.Shard.Index
		}
		for _, a := range rec.Accounts {
			prev, dup := accts[a.Account]
			assert.False(t, dup, "%s in shards %d and %d", a.Account, prev, rec.Meta.Shard.Index)
			accts[a.Account] = rec.Meta.Shard.Index
		}
	}

	m, err := record.Merge(outs, false)
	require.NoError(t, err)
	rep := judge(t, m, mustThreshold(t, "duplicate_debits<=0"))
	out := text(t, rep)
	requireNoFailure(t, rep)
	assert.Len(t, rep.Shards, 2)
	assert.Equal(t, len(resultsOf(t, outs[0]))+len(resultsOf(t, outs[1])), rep.Requests)
	assert.Equal(t, outs[0].Generator.Sent+outs[1].Generator.Sent, rep.Generator.Sent)
	assert.Len(t, rep.Reconciliation.Accounts, 4)
	// Percentiles are recomputed from the raw results, not averaged: the
	// largest is the largest of all, within the histogram's precision.
	var all []time.Duration
	for _, rec := range outs {
		for _, r := range resultsOf(t, rec) {
			all = append(all, r.Latency)
		}
	}
	assert.InEpsilon(t, float64(maxOf(all)), float64(rep.Raw.Max), 0.001)

	// The merged artifacts can be written and read back.
	dir := t.TempDir()
	require.NoError(t, report.WriteArtifacts(dir, m, rep))
	t.Log("\n" + out)

	_, err = record.Merge(outs[:1], false)
	assert.ErrorContains(t, err, "missing")
	_, err = record.Merge([]*record.Run{outs[0], outs[0]}, false)
	assert.ErrorContains(t, err, "twice")
	other := *outs[1]
	other.Meta.RunID = "someotherrun"
	_, err = record.Merge([]*record.Run{outs[0], &other}, false)
	assert.ErrorContains(t, err, "belongs to run")
}

func TestShardsSharingAnAccountReconcileOnMerge(t *testing.T) {
	t.Parallel()
	p := startReference(t)
	p.LoadCustomers = p.LoadCustomers[:1] // two shards, one account: shared
	dirs := runShards(t, p, 2, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(50, time.Second)),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}))
	outs := readAll(t, dirs)
	for _, rec := range outs {
		require.Len(t, rec.Accounts, 1)
		assert.True(t, rec.Accounts[0].Shared)
		alone, err := record.Merge([]*record.Run{rec}, true) // counted and judged as its own report was
		require.NoError(t, err)
		rep := judge(t, alone)
		require.NotNil(t, rep.Reconciliation)
		assert.Contains(t, rep.Reconciliation.Accounts[0].Skipped, "merge")
	}
	m, err := record.Merge(outs, false)
	require.NoError(t, err)
	rep := judge(t, m)
	requireNoFailure(t, rep)
	require.Len(t, rep.Reconciliation.Accounts, 1)
	a := rep.Reconciliation.Accounts[0]
	assert.Empty(t, a.Skipped)
	assert.True(t, a.OK)
	assert.Greater(t, a.BalanceChange, int64(0))
	assert.Equal(t, a.BalanceMin, a.BalanceChange)
}

func mustThreshold(t *testing.T, s string) report.Threshold {
	t.Helper()
	th, err := report.ParseThreshold(s)
	require.NoError(t, err)
	return th
}

func maxOf(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// resultsOf reads every result of o, from memory or its results file.
func resultsOf(tb testing.TB, rec *record.Run) []record.Result {
	tb.Helper()
	var out []record.Result
	require.NoError(tb, rec.EachResult(func(r *record.Result) error { out = append(out, *r); return nil }))
	return out
}

// ledgerOf reads every ledger entry of o, from memory or its ledger file.
func ledgerOf(tb testing.TB, rec *record.Run) []record.Payment {
	tb.Helper()
	var out []record.Payment
	require.NoError(tb, rec.EachPayment(func(p *record.Payment) error { out = append(out, *p); return nil }))
	return out
}
