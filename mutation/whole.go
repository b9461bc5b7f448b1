package mutation

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Source is the reference as it is today: the files mutated, every mutant
// of them, and the hashes a verdict must carry to be current.
type Source struct {
	Files      []string
	Mutants    []Mutant // every position, in the order of the run's seed
	FileHashes map[string]string
	KillerHash string
	// Inputs are the module's files the hashes cover, mutated or not.
	Inputs []string
}

// ReadSource enumerates today's mutants and hashes their files and the
// killer of cfg.
func ReadSource(ctx context.Context, cfg Config) (*Source, error) {
	files, all, err := EnumerateSources(cfg.Root)
	if err != nil {
		return nil, err
	}
	fh, err := FileHashes(cfg.Root, files)
	if err != nil {
		return nil, err
	}
	kh, read, err := KillerHash(ctx, cfg, files)
	if err != nil {
		return nil, err
	}
	return &Source{Files: files, Mutants: Order(all, cfg.Seed), FileHashes: fh, KillerHash: kh, Inputs: append(read, files...)}, nil
}

// Why a part ended (Part.Ended).
const (
	endedDone        = "done"
	endedLimit       = "limit"
	endedFor         = "for"
	endedInterrupted = "interrupted"
)

// RunAll is the whole enumeration, resumed: it tries every mutant of
// today's source that the ledger (cfg.Ledger) holds no current verdict of,
// in the seed's order, so that a ledger cut short is a sample of the
// positions. It appends each verdict to the ledger as it comes and stops
// before a mutant past cfg.Limit mutants tried or cfg.For of wall time;
// the next run goes on from there. The ledger is rewritten whole at the
// start and at the end, an interrupted run included, which returns the
// context's error with the ledger.
func RunAll(ctx context.Context, cfg Config) (*Ledger, *Source, error) {
	start := time.Now()
	if len(cfg.Killers) == 0 {
		return nil, nil, errors.New("no killer")
	}
	unlock, err := lockLedger(cfg.Ledger)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	src, err := ReadSource(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	led, err := ReadLedger(cfg.Ledger)
	if err != nil {
		return nil, nil, err
	}
	led.compact(src.Mutants)
	current, stale, untried := led.Verdicts(src)
	todo := Order(append(stale, untried...), cfg.Seed)
	fmt.Fprintf(cfg.Progress, "mutation: %d mutants in %d files; the ledger holds %d current verdicts; %d to try (%d never tried, %d again: their file or the killer changed)\n",
		len(src.Mutants), len(src.Files), len(current), len(todo), len(untried), len(stale))
	if len(todo) == 0 {
		return led, src, led.Write(cfg.Ledger)
	}
	b := &Builder{Root: cfg.Root, Work: cfg.Work, Go: cfg.Go, Package: serverPackage}
	judging, bound, err := cfg.baseline(ctx, b)
	if err != nil {
		return led, src, err
	}
	part := Part{ID: led.nextPart(), Started: start.UTC(), Commit: commit(cfg.Root, src.Inputs...), KillerHash: src.KillerHash, Judging: judging}
	led.Parts = append(led.Parts, part)
	if err := led.Write(cfg.Ledger); err != nil {
		return led, src, err
	}
	part.Ended, err = cfg.tryAll(ctx, b, led, src, part.ID, todo, bound, start)
	part.Seconds = time.Since(start).Seconds()
	led.setPart(part)
	led.compact(src.Mutants)
	if werr := led.Write(cfg.Ledger); werr != nil && err == nil {
		err = werr
	}
	return led, src, err
}

// tryAll tries todo, appending each verdict to the ledger, until every one
// is tried, a bound of the piece is reached, or ctx ends; it says which.
func (cfg Config) tryAll(ctx context.Context, b *Builder, led *Ledger, src *Source, part int, todo []Mutant, bound time.Duration, start time.Time) (string, error) {
	w, err := appendTo(cfg.Ledger)
	if err != nil {
		return "", err
	}
	defer func() { _ = w.close() }()
	p := progress{out: cfg.Progress, want: len(todo), start: time.Now(), all: true}
	for i, m := range todo {
		switch {
		case cfg.Limit > 0 && i >= cfg.Limit:
			fmt.Fprintf(cfg.Progress, "mutation: --limit %d reached; %d left for the next run\n", cfg.Limit, len(todo)-i)
			return endedLimit, nil
		case cfg.For > 0 && time.Since(start) >= cfg.For:
			fmt.Fprintf(cfg.Progress, "mutation: --for %s reached; %d left for the next run\n", cfg.For, len(todo)-i)
			return endedFor, nil
		case ctx.Err() != nil:
			return endedInterrupted, ctx.Err()
		}
		r, err := cfg.try(ctx, b, m, bound)
		if err != nil {
			if ctx.Err() != nil {
				return endedInterrupted, ctx.Err()
			}
			return "", err
		}
		e := Entry{Result: r.forLedger(), Part: part, FileHash: src.FileHashes[m.File], KillerHash: src.KillerHash}
		led.Entries = append(led.Entries, e)
		if err := w.write(ledgerLine{Mutant: &e}); err != nil {
			return "", err
		}
		p.report(r, 0, i+1)
	}
	return endedDone, nil
}
