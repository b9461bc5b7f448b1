package reference

import "time"

// Commit is one group commit of the journal of a store with a state
// directory: a frame of records written and fdatasynced, which answered
// every request waiting on one of them.
type Commit struct {
	Records int           // the records of the frame: its group's size
	Bytes   int           // the frame's length
	Took    time.Duration // its write and fdatasync (and the zeros reserved ahead, now and then)
}

// WithCommitObserver calls observe after each commit of the journal
// (WithState), from the journal's goroutine, as the commit's requests are
// woken: observe must be quick (a histogram's). Without a state directory
// there is no commit.
func WithCommitObserver(observe func(Commit)) Option {
	return func(s *Store) { s.observeCommit = observe }
}

// committed tells the observer, if any, that frame, whose write began at
// start, is durable.
func (j *journal) committed(frame []byte, start time.Time) {
	if j.observe != nil {
		j.observe(Commit{Records: countRecords(frame[frameHeader:]), Bytes: len(frame), Took: time.Since(start)})
	}
}
