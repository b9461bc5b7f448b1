package reference

import (
	"errors"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

// hasPointers reports whether values of t hold a pointer the garbage
// collector must scan.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	default: // pointers, strings, slices, maps, interfaces, channels, functions
		return true
	}
}

// TestStoredDataHoldsNoPointers keeps the records, the index entries and
// the arena references free of pointers, so the collector does not scan a
// million stored payments.
func TestStoredDataHoldsNoPointers(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{
		reflect.TypeFor[txRecord](), reflect.TypeFor[arenaRef](), reflect.TypeFor[[recordChunk]txRecord](),
		reflect.TypeFor[[seqChunk]uint32](), reflect.TypeFor[map[uint32]uint32]().Key(), reflect.TypeFor[map[uint32]uint32]().Elem(),
	} {
		assert.False(t, hasPointers(typ), "%v holds a pointer", typ)
	}
	// The check itself finds pointers.
	assert.True(t, hasPointers(reflect.TypeFor[struct {
		a int64
		s string
	}]()))
	assert.True(t, hasPointers(reflect.TypeFor[[2]*int]()))
}

func TestMsisdnEncoding(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0812345678", "081234567890", "0812345678901", "0800000000000", "0899999999999"} {
		v, n, ok := encodeMsisdn(s)
		require.True(t, ok, s)
		assert.Equal(t, s, decodeMsisdn(v, n))
	}
	for _, s := range []string{"", "+6281234567890", "81234567890", "08123456789012", "08123x567890"} {
		_, _, ok := encodeMsisdn(s)
		assert.False(t, ok, s)
	}
}

func TestArena(t *testing.T) {
	t.Parallel()
	a := arena{cur: -1}
	var want []string
	var refs []arenaRef
	for i := range 20_000 { // crosses chunks
		s := "trx-" + strconv.Itoa(i)
		switch i % 1000 {
		case 7:
			s = strings.Repeat("long", arenaOwnChunk) // its own chunk
		case 8:
			s = ""
		case 9:
			s = strings.Repeat("x", arenaOwnChunk) // the longest that shares a chunk
		}
		want = append(want, s)
		refs = append(refs, a.add(s))
	}
	assert.Greater(t, len(a.chunks), 3)
	for i, r := range refs {
		require.Equal(t, want[i], string(a.bytes(r)), i)
	}
}

func TestSeqIndex(t *testing.T) {
	t.Parallel()
	x := &seqIndex{first: 5}
	for seq := uint32(5); seq < 5+3*seqChunk; seq++ {
		x.set(seq, seq*2)
	}
	for _, seq := range []uint32{5, 6, 4 + seqChunk, 5 + seqChunk, 4 + 3*seqChunk} {
		i, ok := x.get(seq)
		require.True(t, ok, seq)
		assert.Equal(t, seq*2, i)
	}
	for _, seq := range []uint32{0, 4, 5 + 3*seqChunk, 1 << 31} {
		_, ok := x.get(seq)
		assert.False(t, ok, seq)
	}
	x.set(10+4*seqChunk, 0) // a gap: the sequences between are none
	i, ok := x.get(10 + 4*seqChunk)
	require.True(t, ok)
	assert.Zero(t, i)
	_, ok = x.get(9 + 4*seqChunk)
	assert.False(t, ok)
}

// TestTrxIDIndexCollisions gives different keys one hash: each key still
// finds its own record, and a reused key (FaultDuplicateTrxAccepted) finds
// the latest.
func TestTrxIDIndexCollisions(t *testing.T) {
	t.Parallel()
	txs := newTransactions("/")
	keys := []partnerKey{{1, "a"}, {1, "b"}, {2, "a"}, {1, "a"}, {2, "a"}}
	const h = 42
	for _, k := range keys {
		i, r := txs.add()
		r.partner, r.trxID = k.partner, txs.text.add(k.key)
		txs.indexTrxID(h, k.partner, k.key, i)
	}
	for k, want := range map[partnerKey]uint32{{1, "a"}: 3, {1, "b"}: 1, {2, "a"}: 4} {
		i, ok := txs.lookupTrxID(h, k.partner, k.key)
		require.True(t, ok, k)
		assert.Equal(t, want, i, k)
	}
	assert.Len(t, txs.collided, 2, "the keys after the first are the collided ones")
	_, ok := txs.lookupTrxID(h, 1, "c")
	assert.False(t, ok)
	_, ok = txs.lookupTrxID(h, 3, "a")
	assert.False(t, ok)
}

// TestTransactionNumbers checks the numbers the store renders and finds
// them back, and only them, by status lookup: made ones by their parts,
// seeded ones as given, with and without FaultTrxNumberWithoutSlash.
func TestTransactionNumbers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		opts    []Option
		first   string // the first number made on t0
		nextDay string // the first number made the next day
		misses  []string
	}{
		{
			name: "document", first: "INV/20261122/P1/00000002", nextDay: "INV/20261123/P1/00000004",
			misses: []string{
				"INV/20261123/P1/00000002", "INV/20261122/P01/00000002", "INV/20261122/P1/0000002",
				"INV/20261122/P1/000000002", "INV/20261122/P1/00000002 ", "INV/20261122/P2/00000002",
				"INV/20261122/P1/00000099", "INV20261122P100000002", "INV/20261122/P1/", "INV/20261122/P",
				"INV/2026112/P1/00000002", "inv/20261122/P1/00000002", "INV/20261122/P-1/00000002",
				"INV/20261122/P+1/00000002", "INV/20261122/P1/+0000002", "INV/20261122/P1/99999999999999999999",
			},
		},
		{
			name: "without slash", opts: []Option{WithFaults(FaultTrxNumberWithoutSlash)},
			first: "INV20261122P100000002", nextDay: "INV20261123P100000004",
			misses: []string{
				"INV/20261122/P1/00000002", "INV20261122P10000002", "INV20261122P1000000002",
				"INV20261122P2100000002", "INV20261123P100000002", "INV20261122P", "INV20261122P00000002",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, clock := newTestStore(t, tc.opts...)
			c := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
			first, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "first", true, true))
			require.NoError(t, err)
			assert.Equal(t, tc.first, first.Number)
			assert.Equal(t, clock.Now(), first.CreatedAt)
			_, err = s.CreatePayment(c, payIn(1002, "081234567890", 0, "second", true, true))
			require.NoError(t, err)
			clock.Advance(24 * time.Hour)
			next, err := s.CreatePayment(c, payIn(1002, "0812345678901", 0, "next day", true, true))
			require.NoError(t, err)
			assert.Equal(t, tc.nextDay, next.Number)

			for _, want := range []Transaction{first, next} {
				got, err := s.PaymentStatus(c, StatusQuery{TransactionNumber: ptr(want.Number)})
				require.NoError(t, err, want.Number)
				assert.Equal(t, want.ID, got.ID)
				assert.Equal(t, want.PartnerTrxID, got.PartnerTrxID)
				assert.Equal(t, want.Msisdn, got.Msisdn)
			}
			_, err = s.PaymentStatus(c, StatusQuery{TransactionNumber: ptr("INV/20261101/P1/00000001")})
			assert.ErrorIs(t, err, ErrPaymentNotFormed, "the seeded number keeps its slashes")
			for _, n := range tc.misses {
				_, err := s.PaymentStatus(c, StatusQuery{TransactionNumber: ptr(n)})
				assert.ErrorIs(t, err, ErrTrxNotFound, n)
			}
		})
	}
}

// TestStoredPaymentReadBack checks that what a payment's answer shows is
// what its status lookups show: the request's strings byte for byte, the
// gateway token and redirect URL rendered from the stored bytes.
func TestStoredPaymentReadBack(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	c := caller(t, s, referencetest.KeyNusantara, referencetest.TokSplit)
	trxID := "ümlaut/Ω-" + strings.Repeat("z", 30)
	made, err := s.CreatePayment(c, CreatePaymentInput{
		ProductID: 1018, Msisdn: "0812345678901", PaymentMethodID: ptr(int64(3)), UseBalance: true,
		PartnerTrxID: trxID, ShiftCode: ptr("pagi"), PromotionID: ptr(int64(5)), Parts: map[string]any{"k": "v"},
	})
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^pay-[0-9a-f]{24}$`), made.GatewayToken)
	assert.Equal(t, "https://pay.nusapay.example/checkout/"+made.GatewayToken, made.RedirectURL)
	assert.Equal(t, trxID, made.PartnerTrxID)

	for _, q := range []StatusQuery{{PartnerTrxID: ptr(trxID)}, {TransactionNumber: ptr(made.Number)}} {
		got, err := s.PaymentStatus(c, q)
		require.NoError(t, err)
		assert.Equal(t, made, got)
	}
	other, err := s.CreatePayment(c, payIn(1018, "081234567890", 3, "other", true, false))
	require.NoError(t, err)
	assert.NotEqual(t, made.GatewayToken, other.GatewayToken)

	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.txs.lookupNumber(made.Number)
	require.True(t, ok)
	e := s.txs.extra(i, false)
	require.NotNil(t, e, "the request's rare fields are kept")
	assert.Equal(t, "pagi", *e.shiftCode)
	assert.Equal(t, int64(5), *e.promotionID)
	assert.Equal(t, map[string]any{"k": "v"}, e.parts)
	j, ok := s.txs.lookupNumber(other.Number)
	require.True(t, ok)
	assert.Nil(t, s.txs.extra(j, false), "a payment without them has no extra")
}

// TestSeededTransactionMsisdn keeps a seeded destination number that is
// not a phone number as given (the data set does not check it).
func TestSeededTransactionMsisdn(t *testing.T) {
	t.Parallel()
	ds, err := DefaultDataset()
	require.NoError(t, err)
	require.NotEmpty(t, ds.Transactions)
	ds.Transactions[0].Msisdn = "+62 812"
	s, err := NewStore(ds)
	require.NoError(t, err)
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.txs.lookupNumber(ds.Transactions[0].TransactionNumber)
	require.True(t, ok)
	assert.Equal(t, "+62 812", s.txs.msisdn(i))
	assert.Equal(t, ds.Transactions[0].PartnerTrxID, s.txs.trxID(i))
}

// FuzzTransactionNumber looks any string up as a transaction_number (the
// status query's parameter): nothing panics, a number found is the one
// asked for, and every number the store made is found.
func FuzzTransactionNumber(f *testing.F) {
	f.Add("INV/20261122/P1/00000002", false)
	f.Add("INV20261122P100000002", true)
	f.Add("INV/20261101/P1/00000001", false)
	f.Add("INV/20261122/P1/", false)
	f.Add("INV20261122P1", true)
	f.Add("INV/20261122/P18446744073709551616/00000002", false)
	stores := map[bool]*Store{}
	made := map[bool][]string{}
	for _, noSlash := range []bool{false, true} {
		var opts []Option
		if noSlash {
			opts = append(opts, WithFaults(FaultTrxNumberWithoutSlash))
		}
		s, clock := newTestStore(f, opts...)
		for i, tok := range []string{referencetest.TokFunded, referencetest.TokFunded, referencetest.TokWarungC} {
			key := referencetest.KeyNusantara
			if tok == referencetest.TokWarungC {
				key = referencetest.KeyWarung
			}
			tx, err := s.CreatePayment(caller(f, s, key, tok), payIn(1002, "081234567890", 0, "fz-"+strconv.Itoa(i), true, true))
			require.NoError(f, err)
			made[noSlash] = append(made[noSlash], tx.Number)
			clock.Advance(25 * time.Hour)
		}
		stores[noSlash] = s
	}
	f.Fuzz(func(t *testing.T, number string, noSlash bool) {
		s := stores[noSlash]
		s.mu.Lock()
		defer s.mu.Unlock()
		if i, ok := s.txs.lookupNumber(number); ok {
			if got := s.txs.number(i); got != number {
				t.Fatalf("looking up %q found %q", number, got)
			}
		}
		for _, n := range made[noSlash] {
			if _, ok := s.txs.lookupNumber(n); !ok {
				t.Fatalf("made number %q not found", n)
			}
		}
	})
}

// FuzzPartnerTrxID stores a payment under any valid partner_trx_id: the
// status lookup by it shows it byte for byte, and a second payment with it
// is refused as a duplicate.
func FuzzPartnerTrxID(f *testing.F) {
	f.Add("a", "b")
	f.Add("ümlaut/Ω", "ümlaut/Ω ")
	f.Add(strings.Repeat("x", 50), strings.Repeat("x", 49))
	ds, err := DefaultDataset()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, first, second string) {
		s, err := NewStore(ds)
		require.NoError(t, err)
		c := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
		for _, id := range []string{first, second} {
			tx, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, id, true, true))
			if err != nil {
				if !errors.Is(err, ErrTrxIDUsed) || id != first {
					return // an id the document refuses, or the duplicate below
				}
				continue
			}
			got, err := s.PaymentStatus(c, StatusQuery{PartnerTrxID: ptr(id)})
			require.NoError(t, err, "%q", id)
			require.Equal(t, tx, got)
			require.Equal(t, id, got.PartnerTrxID)
			byNumber, err := s.PaymentStatus(c, StatusQuery{TransactionNumber: ptr(tx.Number)})
			require.NoError(t, err)
			require.Equal(t, id, byNumber.PartnerTrxID)
			_, err = s.CreatePayment(c, payIn(1002, "081234567890", 0, id, true, true))
			require.ErrorIs(t, err, ErrTrxIDUsed, "%q", id)
		}
	})
}
