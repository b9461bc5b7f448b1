package record

import "io"

// The ledger file as the look-ups after the attack and the reconciliation
// read and rewrite it, one entry at a time.

// ReadLedgerFile calls fn with every entry of the ledger file path.
func ReadLedgerFile(path string, fn func(*Payment) error) error { return readLedgerFile(path, fn) }

// EachLedgerEntry calls fn with each entry of the ledger lines read from r.
func EachLedgerEntry(r io.Reader, fn func(*Payment) error) error { return eachLedgerEntry(r, fn) }

// AppendLedgerLine appends p's ledger line, as the recorder writes it.
func AppendLedgerLine(b []byte, p *Payment) ([]byte, error) { return appendPayment(b, p) }

// LedgerFile is the ledger file the recorder streams to; "" when it keeps
// everything in memory.
func (rc *Recorder) LedgerFile() string { return rc.ledgerFile }
