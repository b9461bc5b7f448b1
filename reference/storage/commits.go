package storage

import "time"

// Commit is one group commit of the journal: a frame of records written
// and fdatasynced, which answered every request waiting on one of them.
type Commit struct {
	Records int           // the records of the frame: its group's size
	Bytes   int           // the frame's length
	Took    time.Duration // its write and fdatasync (and the zeros reserved ahead, now and then)
}

// committed tells the observer, if any, that frame, whose write began at
// start, is durable.
func (j *Journal) committed(frame []byte, start time.Time) {
	if j.observe != nil {
		j.observe(Commit{Records: countRecords(frame[FrameHeader:]), Bytes: len(frame), Took: time.Since(start)})
	}
}
