package reference

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/partnercommerce/conformance/reference/storage"
)

// The record types of the journal.
const (
	recHeader  byte = 'H' // the journal's first record: what its state depends on
	recAccount byte = 'A' // an account as it is after a change (absolute)
	recPayment byte = 'P' // a payment, whose amount debits its account's wallet
	recStored  byte = 'S' // a payment whose debit its account's record holds (compaction)
)

// journalVersion is the format version the header records.
const journalVersion = 1

// headerRecord is the journal's first record: the format version, the
// SHA-256 of the data set, the transition times and, with
// WithWalletTakenWhenPaid, a mark of it. A journal is replayed only over the
// same: its records refer to the data set's accounts and products, a
// payment's status is derived from its creation time and the transition
// times, and whether a payment debited its wallet from the option.
func (s *Store) headerRecord(ds *Dataset) []byte {
	sum := datasetSum(ds)
	b := make([]byte, storage.RecordHeader, 64)
	b = append(b, journalVersion)
	b = append(b, sum[:]...)
	b = binary.AppendVarint(b, int64(s.rules.settleAfter))
	b = binary.AppendVarint(b, int64(s.rules.expireAfter))
	if s.policy.walletWhenPaid {
		b = append(b, 1) // a journal of either kind is replayed only by a store of the same kind
	}
	return storage.SealRecord(b, recHeader)
}

// datasetSum is the SHA-256 of a data set's JSON encoding (struct fields in
// order, so the same data set always gives the same sum).
func datasetSum(ds *Dataset) [32]byte {
	data, err := json.Marshal(ds)
	if err != nil {
		return [32]byte{} // a data set of plain values always encodes
	}
	return sha256.Sum256(data)
}

// errStateMismatch is a journal written with another data set or other
// transition times.
var errStateMismatch = storage.ErrMismatch

func (s *Store) checkHeader(payload []byte) error {
	want := s.header[storage.RecordHeader:]
	if bytes.Equal(payload, want) {
		return nil
	}
	d := decoder{b: payload}
	if d.byte() != journalVersion {
		return fmt.Errorf("%w by another version of the reference (journal format %d, this one reads %d)", errStateMismatch, payload[0], journalVersion)
	}
	if !bytes.Equal(d.bytes(sha256.Size), want[1:1+sha256.Size]) {
		return fmt.Errorf("%w with another data set (--seed); start with the same data set or another --state directory", errStateMismatch)
	}
	settle, expire := time.Duration(d.varint()), time.Duration(d.varint())
	if settle == s.rules.settleAfter && expire == s.rules.expireAfter {
		return fmt.Errorf("%w with --wallet-when-paid %v (this start: %v); the wallets replay as it says, so start with the same or another --state directory",
			errStateMismatch, !s.policy.walletWhenPaid, s.policy.walletWhenPaid)
	}
	return fmt.Errorf("%w with --settle-after %s --expire-after %s (this start: %s and %s); payment statuses depend on them, so start with the same values or another --state directory",
		errStateMismatch, settle, expire, s.rules.settleAfter, s.rules.expireAfter)
}

// accountRecord encodes account a as it is now. The caller holds s.mu.
func (s *Store) accountRecord(a *account) []byte {
	b := append(s.scratch[:0], 0, 0, 0, 0, 0)
	b = binary.AppendUvarint(b, uint64(a.id))
	b = binary.AppendUvarint(b, uint64(a.partner))
	b = appendString(b, a.name)
	b = appendString(b, a.email)
	b = appendString(b, a.phone)
	b = appendString(b, a.deviceID)
	b = appendString(b, a.token)
	b = appendBool(b, a.main)
	b = binary.AppendVarint(b, a.level)
	b = appendString(b, a.referralCode)
	b = appendBool(b, a.identityNumber != nil)
	if a.identityNumber != nil {
		b = appendString(b, *a.identityNumber)
	}
	b = binary.AppendVarint(b, a.registeredAt.UnixNano())
	b = binary.AppendVarint(b, a.balance)
	b = binary.AppendVarint(b, a.coins)
	b = appendBool(b, a.walletUnavailable)
	s.scratch = b
	return storage.SealRecord(b, recAccount)
}

// applyAccount replays an account record: the account with its token is
// replaced, or created. The caller owns s or holds s.mu.
func (s *Store) applyAccount(p []byte) error {
	a, err := decodeAccount(p)
	if err != nil {
		return err
	}
	if s.cat.partners[a.partner] == nil {
		return fmt.Errorf("account record: partner %d is not in the data set", a.partner)
	}
	if other := s.accounts[a.id]; a.id <= 0 || (other != nil && other.token != a.token) {
		return fmt.Errorf("account record: id %d is another account's", a.id)
	}
	if old := s.byToken[a.token]; old != nil {
		delete(s.accounts, old.id)
		if k := (partnerKey{old.partner, lowerEmail(old.email)}); s.byEmail[k] == old {
			delete(s.byEmail, k)
		}
		if k := (partnerKey{old.partner, old.phone}); s.byPhone[k] == old {
			delete(s.byPhone, k)
		}
		*old = *a
		a = old
	}
	s.index(a)
	s.nextAccountID = max(s.nextAccountID, a.id)
	s.replayed.accounts++
	return nil
}

// decodeAccount reads an account record's payload.
func decodeAccount(p []byte) (*account, error) {
	d := decoder{b: p}
	a := &account{}
	a.id, a.partner = int64(d.uvarint()), int64(d.uvarint())
	a.name, a.email, a.phone, a.deviceID, a.token = d.string(), d.string(), d.string(), d.string(), d.string()
	a.main, a.level, a.referralCode = d.bool(), d.varint(), d.string()
	if d.bool() {
		id := d.string()
		a.identityNumber = &id
	}
	a.registeredAt = time.Unix(0, d.varint()).In(wib)
	a.balance, a.coins, a.walletUnavailable = d.varint(), d.varint(), d.bool()
	if err := d.done(); err != nil {
		return nil, fmt.Errorf("account record: %w", err)
	}
	return a, nil
}

// paymentRecord encodes transaction i as a record of type typ (recPayment
// or recStored). The caller holds s.mu.
func (s *Store) paymentRecord(i uint32, typ byte) []byte {
	r := s.txs.at(i)
	b := append(s.scratch[:0], 0, 0, 0, 0, 0)
	b = binary.AppendUvarint(b, uint64(r.id))
	b = binary.AppendVarint(b, r.created)
	b = binary.AppendUvarint(b, uint64(r.partner))
	b = binary.AppendUvarint(b, uint64(r.account))
	b = binary.AppendUvarint(b, r.msisdn)
	b = append(b, r.msisdnLen)
	b = binary.AppendVarint(b, r.amount.Total)
	b = binary.AppendVarint(b, r.amount.BalanceUsed)
	b = binary.AppendVarint(b, r.amount.CoinUsed)
	b = binary.AppendVarint(b, r.amount.CoinValueUsed)
	b = binary.AppendVarint(b, r.amount.GatewayPayment)
	b = binary.AppendUvarint(b, uint64(r.seq))
	b = binary.AppendUvarint(b, uint64(s.cat.productAt[r.product].ID))
	b = binary.AppendUvarint(b, uint64(s.cat.methodAt[r.method].ID))
	b = append(b, r.paymentStatus, r.status, r.flags&^flagExtra)
	if r.flags&flagToken != 0 {
		b = append(b, r.token[:]...)
	}
	b = appendString(b, string(s.txs.text.bytes(r.trxID)))
	var e *txExtra
	if r.flags&flagExtra != 0 {
		e = s.txs.extras[i]
	}
	b = appendExtra(b, e)
	s.scratch = b
	return storage.SealRecord(b, typ)
}

// The parts of a payment's extra a record carries.
const (
	extraPromotion = 1 << iota
	extraShiftCode
	extraParts
)

func appendExtra(b []byte, e *txExtra) []byte {
	var mask byte
	if e != nil {
		if e.promotionID != nil {
			mask |= extraPromotion
		}
		if e.shiftCode != nil {
			mask |= extraShiftCode
		}
		if e.parts != nil {
			mask |= extraParts
		}
	}
	b = append(b, mask)
	if mask&extraPromotion != 0 {
		b = binary.AppendVarint(b, *e.promotionID)
	}
	if mask&extraShiftCode != 0 {
		b = appendString(b, *e.shiftCode)
	}
	if mask&extraParts != 0 {
		parts, err := json.Marshal(e.parts)
		if err != nil {
			parts = []byte("{}") // parts come from a JSON body, so they encode
		}
		b = appendString(b, string(parts))
	}
	return b
}

// applyPayment replays a payment record: the transaction is stored and,
// with debit, its amount debited from its account's wallet. The caller owns
// s or holds s.mu.
func (s *Store) applyPayment(p []byte, debit bool) error {
	pr, err := decodePayment(p)
	if err != nil {
		return err
	}
	r := pr.txRecord
	a := s.accounts[r.account]
	product, ok := s.cat.productIndex[pr.productID]
	method, mok := s.cat.methodIndex[pr.methodID]
	switch {
	case a == nil:
		return fmt.Errorf("payment record %d: account %d does not exist", r.id, r.account)
	case !ok || (pr.methodID != 0 && !mok):
		return fmt.Errorf("payment record %d: product %d or method %d is not in the data set", r.id, pr.productID, pr.methodID)
	case int(r.paymentStatus) >= len(paymentStatuses) || int(r.status) >= len(transactionStatuses) || r.msisdnLen > 19:
		return fmt.Errorf("payment record %d: a status or the destination number is out of range", r.id)
	case r.id != s.txs.lastID+1 || int64(r.seq) != s.txs.lastSeq[r.partner]+1:
		// The store numbers payments in the order it journals them.
		return fmt.Errorf("payment record %d (sequence %d of partner %d) is out of order", r.id, r.seq, r.partner)
	}
	i, rec := s.txs.add()
	*rec = r
	rec.product, rec.method = product, method
	rec.trxID = s.txs.text.add(pr.trxID)
	if pr.mask != 0 {
		x := s.txs.extra(i, true)
		x.promotionID, x.shiftCode, x.parts = pr.extra.promotionID, pr.extra.shiftCode, pr.extra.parts
	}
	s.txs.indexTrxID(s.txs.hash(r.partner, pr.trxID), r.partner, pr.trxID, i)
	s.txs.indexNumber(i)
	s.txs.lastID = max(s.txs.lastID, r.id)
	s.txs.lastSeq[r.partner] = max(s.txs.lastSeq[r.partner], int64(r.seq))
	if debit && s.policy.takesWalletAtCreation(r.amount.Total-r.amount.BalanceUsed-r.amount.CoinValueUsed) {
		a.balance -= r.amount.BalanceUsed
		a.coins -= r.amount.CoinUsed
	}
	s.replayed.payments++
	return nil
}

// paymentPayload is a payment record's payload as read: the transaction
// and what refers to the catalog or the text store.
type paymentPayload struct {
	txRecord
	productID, methodID int64
	trxID               string
	named               bool // the record reads up to its trxID (a torn one may not further)
	mask                byte
	extra               txExtra
}

// decodePayment reads a payment record's payload.
func decodePayment(p []byte) (paymentPayload, error) {
	d := decoder{b: p}
	var pr paymentPayload
	r := &pr.txRecord
	r.id, r.created = int64(d.uvarint()), d.varint()
	r.partner, r.account = int64(d.uvarint()), int64(d.uvarint())
	r.msisdn, r.msisdnLen = d.uvarint(), d.byte()
	r.amount = Amount{Total: d.varint(), BalanceUsed: d.varint(), CoinUsed: d.varint(), CoinValueUsed: d.varint(), GatewayPayment: d.varint()}
	r.seq = uint32(d.uvarint())
	pr.productID, pr.methodID = int64(d.uvarint()), int64(d.uvarint())
	r.paymentStatus, r.status, r.flags = d.byte(), d.byte(), d.byte()
	if r.flags&flagToken != 0 {
		copy(r.token[:], d.bytes(len(r.token)))
	}
	pr.trxID = d.string()
	pr.named = d.err == nil
	pr.mask = d.byte()
	if pr.mask&extraPromotion != 0 {
		id := d.varint()
		pr.extra.promotionID = &id
	}
	if pr.mask&extraShiftCode != 0 {
		sc := d.string()
		pr.extra.shiftCode = &sc
	}
	if pr.mask&extraParts != 0 {
		var parts map[string]any // its own variable: &pr.extra.parts would move pr to the heap
		if err := json.Unmarshal([]byte(d.string()), &parts); err != nil {
			return pr, fmt.Errorf("payment record: parts: %w", err)
		}
		pr.extra.parts = parts
	}
	if err := d.done(); err != nil {
		return pr, fmt.Errorf("payment record: %w", err)
	}
	return pr, nil
}

func appendString(b []byte, v string) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// decoder reads a record's payload; the first error sticks and the reads
// after it return zero values.
type decoder struct {
	b   []byte
	err error
}

var errShortRecord = errors.New("record ends early")

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	d.skip(n)
	return v // 0 when n <= 0
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	d.skip(n)
	return v // 0 when n <= 0
}

// skip passes the n bytes a varint took, or fails when n <= 0 (it did not
// read).
func (d *decoder) skip(n int) {
	if n <= 0 {
		d.fail()
		return
	}
	d.b = d.b[n:]
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) bool() bool { return d.byte() != 0 }

func (d *decoder) bytes(n int) []byte {
	if n < 0 || len(d.b) < n {
		d.fail()
		return make([]byte, max(n, 0))
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	return string(d.bytes(int(n)))
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errShortRecord
	}
	d.b = nil
}

func (d *decoder) done() error {
	if d.err == nil && len(d.b) > 0 {
		return errors.New("record has trailing bytes")
	}
	return d.err
}
