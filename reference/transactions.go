package reference

import (
	"encoding/hex"
	"hash/maphash"
	"strconv"
	"strings"
	"time"
)

// transactions is the store's table of transactions, guarded by Store.mu.
// It is built for a million payments and more: each transaction
// is a pointer-free record of fixed size kept in chunks that never move, so
// the garbage collector has nothing to scan in them and growth copies no
// record; the variable strings live in a byte arena, the catalog entries
// are referred to by index, and the ids and times are integers rendered on
// the way out. The indexes hold no pointers either: a hash of (partner,
// partner_trx_id) and, per partner, the transaction_number sequence, each
// mapping to a record's index.
type transactions struct {
	chunks []*[recordChunk]txRecord
	n      uint32
	text   arena

	seed maphash.Seed
	// byTrxID maps the hash of (partner, partner_trx_id) to the record that
	// holds the key; collided holds the keys whose hash another key holds.
	byTrxID  map[uint32]uint32
	collided map[partnerKey]uint32
	// bySeq maps, per partner, the sequence of a transaction_number the
	// store made to its record; seededNumbers maps the data set's numbers,
	// which are arbitrary.
	bySeq         map[int64]*seqIndex
	seededNumbers map[string]uint32
	// extras holds what few records carry (see txExtra), by record index.
	extras map[uint32]*txExtra

	// numberSep separates the parts of the numbers the store makes ("/";
	// "" under FaultTrxNumberWithoutSlash).
	numberSep string
	lastID    int64
	lastSeq   map[int64]int64 // last transaction_number sequence per partner
}

// recordChunk is the number of records per chunk (128 KiB of records).
const recordChunk = 1024

// txRecord is a stored transaction. It holds no pointer.
type txRecord struct {
	id      int64
	created int64 // Unix nanoseconds; updated_at is evaluated at read time
	partner int64
	account int64
	// msisdn is the destination number's digits as an integer and
	// msisdnLen its length (a valid number begins with 0; see txExtra).
	msisdn  uint64
	amount  Amount
	trxID   arenaRef
	token   [12]byte // the gateway token's random bytes (flagToken)
	seq     uint32   // the sequence of the transaction_number
	lookups uint32   // status lookups so far (read only by FaultStatusAmountDrifts)
	product uint32   // index in catalog.productAt
	method  uint32   // index in catalog.methodAt; 0 is the internal method
	// The method shown is the internal one when balance and coins cover all.
	msisdnLen     uint8
	paymentStatus uint8 // index in paymentStatuses
	status        uint8 // index in transactionStatuses
	flags         uint8
}

// The flags of a record.
const (
	// flagRequired: a gateway payment is required (payment_required).
	flagRequired uint8 = 1 << iota
	// flagToken: the record has a gateway token and redirect URL.
	flagToken
	// flagFormed: the payment was formed (every payment the store makes).
	flagFormed
	// flagExtra: the record has an entry in transactions.extras.
	flagExtra
)

// txExtra is what only a few records carry. The request's promotion_id,
// shift_code and parts are kept as the record of the request
// (docs/reference-choices.md: accepted and stored); no answer of the
// document shows them. A seeded transaction keeps its number, and its
// destination number when it is not digits only.
type txExtra struct {
	promotionID *int64
	shiftCode   *string
	parts       map[string]any
	number      string // a seeded transaction's transaction_number
	msisdn      string // a destination number msisdn does not hold
	rawMsisdn   bool
}

var (
	paymentStatuses     = [...]PaymentStatus{PaymentUnpaid, PaymentPaid, PaymentExpired, PaymentFailed}
	transactionStatuses = [...]TransactionStatus{TransactionWaitingPayment, TransactionProcessing, TransactionSuccess, TransactionFailed}
)

func paymentStatusIndex(p PaymentStatus) uint8 {
	for i, v := range paymentStatuses {
		if v == p {
			return uint8(i)
		}
	}
	return 0
}

func transactionStatusIndex(t TransactionStatus) uint8 {
	for i, v := range transactionStatuses {
		if v == t {
			return uint8(i)
		}
	}
	return 0
}

func newTransactions(numberSep string) transactions {
	return transactions{
		text:          arena{cur: -1},
		seed:          maphash.MakeSeed(),
		byTrxID:       map[uint32]uint32{},
		collided:      map[partnerKey]uint32{},
		bySeq:         map[int64]*seqIndex{},
		seededNumbers: map[string]uint32{},
		extras:        map[uint32]*txExtra{},
		numberSep:     numberSep,
		lastSeq:       map[int64]int64{},
	}
}

// reset empties the table. The hash seed is kept, and not even written:
// requests hash their partner_trx_id before they take Store.mu.
func (t *transactions) reset() {
	t.chunks, t.n, t.text = nil, 0, arena{cur: -1}
	t.byTrxID, t.collided = map[uint32]uint32{}, map[partnerKey]uint32{}
	t.bySeq, t.seededNumbers = map[int64]*seqIndex{}, map[string]uint32{}
	t.extras = map[uint32]*txExtra{}
	t.lastID, t.lastSeq = 0, map[int64]int64{}
}

// add appends a zero record and returns its index and the record. Indexes
// are 32 bits: 2^32 records would take 512 GiB.
func (t *transactions) add() (uint32, *txRecord) {
	i := t.n
	if int(i/recordChunk) == len(t.chunks) {
		t.chunks = append(t.chunks, new([recordChunk]txRecord))
	}
	t.n++
	return i, &t.chunks[i/recordChunk][i%recordChunk]
}

// at returns record i, which must exist.
func (t *transactions) at(i uint32) *txRecord { return &t.chunks[i/recordChunk][i%recordChunk] }

// extra returns the extra of record i, making it when create is true; nil
// when the record has none and create is false.
func (t *transactions) extra(i uint32, create bool) *txExtra {
	r := t.at(i)
	if r.flags&flagExtra != 0 {
		return t.extras[i]
	}
	if !create {
		return nil
	}
	e := &txExtra{}
	t.extras[i] = e
	r.flags |= flagExtra
	return e
}

// hash is the byTrxID hash of a partner's partner_trx_id. It reads only the
// seed, fixed at construction, so it may run outside the lock.
func (t *transactions) hash(partner int64, trxID string) uint32 {
	h := maphash.String(t.seed, trxID) ^ uint64(partner)*0x9e3779b97f4a7c15
	return uint32(h ^ h>>32)
}

// lookupTrxID returns the record of the partner's partner_trx_id; h is
// t.hash(partner, trxID).
func (t *transactions) lookupTrxID(h uint32, partner int64, trxID string) (uint32, bool) {
	i, ok := t.byTrxID[h]
	if !ok {
		return 0, false // a key goes to collided only when its hash is taken
	}
	if t.holds(i, partner, trxID) {
		return i, true
	}
	i, ok = t.collided[partnerKey{partner, trxID}]
	return i, ok
}

// holds reports whether record i is the partner's partner_trx_id.
func (t *transactions) holds(i uint32, partner int64, trxID string) bool {
	r := t.at(i)
	return r.partner == partner && string(t.text.bytes(r.trxID)) == trxID
}

// indexTrxID makes record i the one of the partner's partner_trx_id (the
// latest one wins when the key is reused, FaultDuplicateTrxAccepted).
func (t *transactions) indexTrxID(h uint32, partner int64, trxID string, i uint32) {
	if j, ok := t.byTrxID[h]; ok && !t.holds(j, partner, trxID) {
		t.collided[partnerKey{partner, strings.Clone(trxID)}] = i // the store owns its keys
		return
	}
	t.byTrxID[h] = i
}

// trxID renders record i's partner_trx_id.
func (t *transactions) trxID(i uint32) string { return string(t.text.bytes(t.at(i).trxID)) }

// msisdn renders record i's destination number.
func (t *transactions) msisdn(i uint32) string {
	r := t.at(i)
	if r.flags&flagExtra != 0 {
		if e := t.extras[i]; e.rawMsisdn {
			return e.msisdn
		}
	}
	return decodeMsisdn(r.msisdn, r.msisdnLen)
}

// setMsisdn stores record i's destination number, as digits when it is a
// valid phone number and as text in its extra otherwise (only a seeded
// transaction's may not be).
func (t *transactions) setMsisdn(i uint32, msisdn string) {
	if v, n, ok := encodeMsisdn(msisdn); ok {
		r := t.at(i)
		r.msisdn, r.msisdnLen = v, n
		return
	}
	e := t.extra(i, true)
	e.msisdn, e.rawMsisdn = msisdn, true
}

// encodeMsisdn holds a phone number (validPhoneNumber) as an integer and its
// length.
func encodeMsisdn(s string) (uint64, uint8, bool) {
	if !validPhoneNumber(s) {
		return 0, 0, false
	}
	var v uint64
	for i := range len(s) {
		v = v*10 + uint64(s[i]-'0')
	}
	return v, uint8(len(s)), true
}

func decodeMsisdn(v uint64, n uint8) string {
	var buf [20]byte
	b := buf[:n]
	for i := int(n) - 1; i >= 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b)
}

// number renders record i's transaction_number.
func (t *transactions) number(i uint32) string {
	r := t.at(i)
	if r.flags&flagExtra != 0 {
		if e := t.extras[i]; e.number != "" {
			return e.number
		}
	}
	var buf [64]byte
	return string(t.appendNumber(buf[:0], r))
}

// appendNumber appends the number the store made for r: INV, the WIB date
// of its creation, P and the partner id, and the sequence on 8 digits, the
// parts separated by numberSep.
func (t *transactions) appendNumber(b []byte, r *txRecord) []byte {
	y, m, d := time.Unix(0, r.created).In(wib).Date()
	b = append(b, "INV"...)
	b = append(b, t.numberSep...)
	b = appendPadded(b, int64(y), 4)
	b = appendPadded(b, int64(m), 2)
	b = appendPadded(b, int64(d), 2)
	b = append(b, t.numberSep...)
	b = append(b, 'P')
	b = strconv.AppendInt(b, r.partner, 10)
	b = append(b, t.numberSep...)
	return appendPadded(b, int64(r.seq), 8)
}

// appendPadded appends v in decimal, padded with zeros to width digits
// (fmt's %0*d for v >= 0).
func appendPadded(b []byte, v int64, width int) []byte {
	var buf [20]byte
	d := strconv.AppendInt(buf[:0], v, 10)
	for range width - len(d) {
		b = append(b, '0')
	}
	return append(b, d...)
}

// nextNumber allocates the next sequence of the partner's numbers.
func (t *transactions) nextNumber(partner int64) uint32 {
	t.lastSeq[partner]++
	return uint32(t.lastSeq[partner])
}

// indexNumber makes record i the one of its partner's sequence.
func (t *transactions) indexNumber(i uint32) {
	r := t.at(i)
	x := t.bySeq[r.partner]
	if x == nil {
		x = &seqIndex{first: r.seq}
		t.bySeq[r.partner] = x
	}
	x.set(r.seq, i)
}

// lookupNumber returns the record whose transaction_number is number: a
// seeded one by its number, a made one by its parts read back.
func (t *transactions) lookupNumber(number string) (uint32, bool) {
	if i, ok := t.seededNumbers[number]; ok {
		return i, true
	}
	rest, ok := cutNumberPrefix(number, t.numberSep)
	if !ok {
		return 0, false
	}
	if t.numberSep != "" {
		partner, seq, ok := strings.Cut(rest, t.numberSep)
		if !ok {
			return 0, false
		}
		return t.lookupParts(number, partner, seq)
	}
	// Without separators the sequence is the last 8 digits or more.
	for k := 8; k < len(rest); k++ {
		if i, ok := t.lookupParts(number, rest[:len(rest)-k], rest[len(rest)-k:]); ok {
			return i, true
		}
	}
	return 0, false
}

// cutNumberPrefix removes INV, the separator, 8 date digits, the separator
// and P from number.
func cutNumberPrefix(number, sep string) (string, bool) {
	n := 3 + len(sep) + 8 + len(sep) + 1
	if len(number) < n || number[:3] != "INV" || number[3:3+len(sep)] != sep ||
		number[n-1-len(sep):n-1] != sep || number[n-1] != 'P' {
		return "", false
	}
	return number[n:], true
}

// lookupParts finds the record of a partner and sequence and checks that
// its number is number.
func (t *transactions) lookupParts(number, partner, seq string) (uint32, bool) {
	p, err := strconv.ParseInt(partner, 10, 64)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(seq, 10, 32)
	if err != nil {
		return 0, false
	}
	x := t.bySeq[p]
	if x == nil {
		return 0, false
	}
	i, ok := x.get(uint32(n))
	if !ok {
		return 0, false
	}
	var buf [64]byte
	if string(t.appendNumber(buf[:0], t.at(i))) != number {
		return 0, false
	}
	return i, true
}

// gatewayToken renders a record's gateway token and redirect URL (one
// string; the token is its tail).
func gatewayToken(r *txRecord) (token, redirectURL string) {
	const prefix = "https://pay.nusapay.example/checkout/"
	var buf [len(prefix) + 4 + 24]byte
	b := append(buf[:0], prefix...)
	b = append(b, "pay-"...)
	b = hex.AppendEncode(b, r.token[:])
	url := string(b)
	return url[len(prefix):], url
}

// seqIndex maps a partner's transaction_number sequences, from first on, to
// record indexes, in chunks that never move.
type seqIndex struct {
	first  uint32
	chunks []*[seqChunk]uint32 // record index + 1; 0 is none
}

const seqChunk = 4096

func (x *seqIndex) set(seq, i uint32) {
	if seq < x.first {
		return // never: sequences grow
	}
	pos := seq - x.first
	for int(pos/seqChunk) >= len(x.chunks) {
		x.chunks = append(x.chunks, new([seqChunk]uint32))
	}
	x.chunks[pos/seqChunk][pos%seqChunk] = i + 1
}

func (x *seqIndex) get(seq uint32) (uint32, bool) {
	if seq < x.first {
		return 0, false
	}
	pos := seq - x.first
	if int(pos/seqChunk) >= len(x.chunks) {
		return 0, false
	}
	v := x.chunks[pos/seqChunk][pos%seqChunk]
	return v - 1, v != 0
}

// arena holds strings back to back in chunks that never move.
type arena struct {
	chunks [][]byte
	cur    int // the chunk being filled; -1 before the first
}

// arenaRef is a string of an arena: chunk, offset and length.
type arenaRef struct{ chunk, off, n uint32 }

const (
	arenaChunk = 64 << 10
	// arenaOwnChunk: a longer string gets a chunk of its own.
	arenaOwnChunk = arenaChunk / 16
)

func (a *arena) add(s string) arenaRef {
	n := uint32(len(s))
	if len(s) > arenaOwnChunk {
		a.chunks = append(a.chunks, []byte(s))
		return arenaRef{chunk: uint32(len(a.chunks) - 1), n: n}
	}
	if a.cur < 0 || len(a.chunks[a.cur])+len(s) > cap(a.chunks[a.cur]) {
		a.chunks = append(a.chunks, make([]byte, 0, arenaChunk))
		a.cur = len(a.chunks) - 1
	}
	c := a.chunks[a.cur]
	ref := arenaRef{chunk: uint32(a.cur), off: uint32(len(c)), n: n}
	a.chunks[a.cur] = append(c, s...)
	return ref
}

func (a *arena) bytes(r arenaRef) []byte { return a.chunks[r.chunk][r.off : r.off+r.n] }
