package reference

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

func TestNewStoreOptions(t *testing.T) {
	t.Parallel()
	ds, err := DefaultDataset()
	require.NoError(t, err)
	s, err := NewStore(ds)
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, s.rules.settleAfter)
	assert.Equal(t, 15*time.Minute, s.rules.expireAfter)
	assert.Empty(t, s.Faults())
	assert.Equal(t, documentPolicy().maxTrxIDLen, s.policy.maxTrxIDLen)

	_, err = NewStore(nil)
	require.Error(t, err)
	_, err = NewStore(ds, WithSettleAfter(-time.Second))
	require.Error(t, err)
	_, err = NewStore(ds, WithClock(nil))
	require.Error(t, err)
	_, err = NewStore(ds, WithGap(nil))
	require.Error(t, err)
	s, err = NewStore(ds, WithFaults(FaultMessageTypo, FaultNoTrxIDLimit))
	require.NoError(t, err)
	assert.Equal(t, []Fault{FaultMessageTypo, FaultNoTrxIDLimit}, s.Faults())
	assert.Equal(t, unlimited, s.policy.maxTrxIDLen, "a rule fault bends the policy")
	assert.Equal(t, 50, s.policy.maxShiftCodeLen)
}

// TestAuthErrorsWordedPerGroup checks section 7's wording of the 401
// messages per endpoint group.
func TestAuthErrorsWordedPerGroup(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	cases := []struct {
		group      Group
		key, token string
		want       string
	}{
		{GroupProducts, "nope", "", "Secret Key tidak valid."},
		{GroupProducts, referencetest.KeyNusantara, "", "Token wajib diisi."},
		{GroupProducts, referencetest.KeyNusantara, "tok-x", "Token tidak valid atau sudah kedaluwarsa."},
		{GroupCustomers, "nope", "", "Akses ditolak. Secret Key tidak valid."},
		{GroupCustomers, referencetest.KeyNusantara, "", "Token wajib diisi."},
		{GroupCustomers, referencetest.KeyNusantara, "tok-x", "Token tidak valid."},
		{GroupPayments, "nope", "", "Akses ditolak. Secret Key tidak valid."},
		{GroupPayments, referencetest.KeyNusantara, "tok-x", "Token tidak valid."},
	}
	for _, tc := range cases {
		_, err := s.Authenticate(tc.key, tc.token, Access{Group: tc.group, Token: true})
		assert.EqualError(t, err, tc.want)
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	cases := []struct {
		name   string
		key    string
		token  string
		access Access
		want   Caller
		err    error
	}{
		{"customer", referencetest.KeyNusantara, referencetest.TokFunded, Access{Token: true}, Caller{PartnerID: 1, AccountID: 11}, nil},
		{"main", referencetest.KeyNusantara, referencetest.TokMain, Access{Token: true, MainOnly: true}, Caller{PartnerID: 1, AccountID: 1, Main: true}, nil},
		{"key only", referencetest.KeyWarung, "", Access{}, Caller{PartnerID: 2}, nil},
		{"key only ignores a bad token", referencetest.KeyWarung, "garbage", Access{}, Caller{PartnerID: 2}, nil},
		{"missing key", "", referencetest.TokFunded, Access{Token: true}, Caller{}, ErrSecretKeyInvalid},
		{"wrong key first", "nope", "", Access{Token: true}, Caller{}, ErrSecretKeyInvalid},
		{"missing token", referencetest.KeyNusantara, "", Access{Token: true}, Caller{}, ErrTokenMissing},
		{"unknown token", referencetest.KeyNusantara, "tok-x", Access{Token: true}, Caller{}, ErrTokenInvalid},
		{"token of other partner", referencetest.KeyWarung, referencetest.TokFunded, Access{Token: true}, Caller{}, ErrTokenInvalid},
		{"customer on main-only", referencetest.KeyNusantara, referencetest.TokFunded, Access{Token: true, MainOnly: true}, Caller{}, ErrSyncMainOnly},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Authenticate(tc.key, tc.token, tc.access)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestFinalPrice(t *testing.T) {
	t.Parallel()
	assert.Equal(t, int64(10500), finalPrice(10000, 500, nil))
	assert.Equal(t, int64(10200), finalPrice(10000, 200, nil))
	assert.Equal(t, int64(10000), finalPrice(10000, 0, nil))
	assert.Equal(t, int64(10000), finalPrice(10000, 500, &Promotion{Discount: 500}))
	assert.Equal(t, int64(6298), finalPrice(5999, 500, nil), "integer division rounds down")
	assert.Equal(t, int64(0), finalPrice(100, 0, &Promotion{Discount: 500}), "never negative")
}

func TestListProducts(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	c := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
	warung := caller(t, s, referencetest.KeyWarung, referencetest.TokWarungC)

	t.Run("prefix selects operator, only active, partner price", func(t *testing.T) {
		for prefix, op := range map[string]string{"0811": "Telkomsel", "0853": "Telkomsel", "0814": "Indosat", "0858": "Indosat",
			"0817": "XL", "0859": "XL", "0877": "XL", "0831": "Axis", "0838": "Axis", "0895": "Tri", "0899": "Tri", "0881": "Smartfren", "0889": "Smartfren"} {
			list, err := s.ListProducts(c, ListQuery{PhoneNumber: prefix + "1234567", SubCategory: "prabayar"})
			require.NoError(t, err)
			require.NotEmpty(t, list, prefix)
			for _, p := range list {
				assert.Equal(t, op, p.Operator.Name, prefix)
				assert.Equal(t, ProductActive, p.Status)
				assert.Equal(t, finalPrice(p.Product.BasePrice, 500, p.Product.Promotion), p.FinalPrice)
			}
		}
	})
	t.Run("another partner's plan", func(t *testing.T) {
		list, err := s.ListProducts(warung, ListQuery{PhoneNumber: "081234567890", SubCategory: "prabayar"})
		require.NoError(t, err)
		require.NotEmpty(t, list)
		assert.Equal(t, finalPrice(list[0].Product.BasePrice, 200, list[0].Product.Promotion), list[0].FinalPrice)
	})
	t.Run("promotion lowers final price", func(t *testing.T) {
		list, err := s.ListProducts(c, ListQuery{PhoneNumber: "081234567890", SubCategory: "prabayar"})
		require.NoError(t, err)
		var found bool
		for _, p := range list {
			if p.Product.Promotion != nil {
				found = true
				assert.Equal(t, p.Product.BasePrice+p.Product.BasePrice*500/10000-p.Product.Promotion.Discount, p.FinalPrice)
			}
		}
		assert.True(t, found)
	})
	t.Run("inactive products left out", func(t *testing.T) {
		list, err := s.ListProducts(c, ListQuery{PhoneNumber: "081234567890", SubCategory: "prabayar"})
		require.NoError(t, err)
		for _, p := range list {
			assert.NotEqual(t, int64(1017), p.Product.ID)
		}
	})
	t.Run("data packages", func(t *testing.T) {
		list, err := s.ListProducts(c, ListQuery{PhoneNumber: "083112345678", SubCategory: "paket-data"})
		require.NoError(t, err)
		assert.Len(t, list, 9, "10 Axis data products, one inactive")
	})
	t.Run("validation order", func(t *testing.T) {
		_, err := s.ListProducts(c, ListQuery{PhoneNumber: "bad", SubCategory: ""})
		assert.ErrorIs(t, err, ErrListQueryEmpty)
		_, err = s.ListProducts(c, ListQuery{PhoneNumber: "bad", SubCategory: "unknown"})
		assert.ErrorIs(t, err, errPhoneInvalid)
		nonaktif := caller(t, s, referencetest.KeyNonaktif, referencetest.TokNonaktif)
		_, err = s.ListProducts(nonaktif, ListQuery{PhoneNumber: "bad", SubCategory: "prabayar"})
		assert.ErrorIs(t, err, errPhoneInvalid)
		_, err = s.ListProducts(nonaktif, ListQuery{PhoneNumber: "081234567890", SubCategory: "unknown"})
		assert.Equal(t, pricePlanMessage("Kemitraan"), err.Error())
	})
	t.Run("number length bounds", func(t *testing.T) {
		for n, ok := range map[string]bool{"0812345678": true, "0812345678901": true, "081234567": false, "08123456789012": false} {
			_, err := s.ListProducts(c, ListQuery{PhoneNumber: n, SubCategory: "prabayar"})
			assert.Equal(t, ok, err == nil, n)
		}
	})
}

func TestSyncProducts(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	c := caller(t, s, referencetest.KeyNusantara, referencetest.TokMain)

	page, err := s.SyncProducts(c, SyncQuery{SubCategory: "paket-data", Page: ptr(3), PageSize: ptr(25)})
	require.NoError(t, err)
	assert.Equal(t, 60, page.Total)
	assert.Equal(t, 3, page.TotalPages)
	assert.Equal(t, 25, page.PerPage)
	require.Len(t, page.Products, 10)
	for i := 1; i < len(page.Products); i++ {
		assert.Less(t, page.Products[i-1].Product.ID, page.Products[i].Product.ID)
	}

	var all []int64
	var inactive int
	for p := 1; ; p++ {
		pg, err := s.SyncProducts(c, SyncQuery{SubCategory: "prabayar", Page: ptr(p), PageSize: ptr(100)})
		require.NoError(t, err)
		if len(pg.Products) == 0 {
			break
		}
		for _, x := range pg.Products {
			all = append(all, x.Product.ID)
			if x.Status == ProductInactive {
				inactive++
			}
		}
	}
	assert.Len(t, all, 266)
	assert.Equal(t, int64(1001), all[0])
	assert.Positive(t, inactive)

	huge, err := s.SyncProducts(c, SyncQuery{SubCategory: "prabayar", Page: ptr(int(^uint(0) >> 1)), PageSize: ptr(100)})
	require.NoError(t, err)
	assert.Empty(t, huge.Products)

	for _, tc := range []struct {
		q   SyncQuery
		err error
	}{
		{SyncQuery{SubCategory: " "}, errSubCategoryRequired},
		{SyncQuery{SubCategory: "prabayar", PageSize: ptr(101)}, errPageSizeTooLarge},
		{SyncQuery{SubCategory: "prabayar", PageSize: ptr(0)}, errPageSizeTooSmall},
		{SyncQuery{SubCategory: "prabayar", Page: ptr(-1)}, errPageTooSmall},
		{SyncQuery{SubCategory: "nope"}, ErrSubCategoryNotFound},
		{SyncQuery{SubCategory: "paket-sms"}, ErrSubCategoryInactive},
	} {
		_, err := s.SyncProducts(c, tc.q)
		assert.ErrorIs(t, err, tc.err, "%+v", tc.q)
	}
}

func TestPageBounds(t *testing.T) {
	t.Parallel()
	cases := []struct{ total, skip, size, lo, hi int }{
		{266, 0, 20, 0, 20},
		{266, 13, 20, 260, 266},
		{266, 14, 20, 266, 266},
		{0, 0, 20, 0, 0},
		{10, 1 << 62, 1 << 62, 10, 10},
		{10, 0, 1 << 62, 0, 10},
	}
	for _, tc := range cases {
		lo, hi := pageBounds(tc.total, tc.skip, tc.size)
		assert.Equal(t, []int{tc.lo, tc.hi}, []int{lo, hi}, "%+v", tc)
	}
}

func TestProvision(t *testing.T) {
	t.Parallel()
	s, clock := newTestStore(t)
	p1 := Caller{PartnerID: 1}

	res, err := s.Provision(p1, ProvisionInput{Name: "Kasir A", PhoneNumber: "081311110000", Email: "Kasir.A@toko.id"})
	require.NoError(t, err)
	assert.True(t, res.Created)
	assert.True(t, strings.HasPrefix(res.Token, "tok-"))

	c := caller(t, s, referencetest.KeyNusantara, res.Token)
	prof, err := s.Profile(c)
	require.NoError(t, err)
	assert.Equal(t, res.CustomerID, prof.ID)
	assert.Equal(t, int64(levelCustomer), prof.Level)
	assert.Equal(t, clock.Now(), prof.RegisteredAt)
	assert.Zero(t, prof.Balance)
	s.mu.Lock()
	assert.Equal(t, defaultDeviceID, s.accounts[res.CustomerID].deviceID)
	s.mu.Unlock()

	// Same phone: synchronized, same id and token, fields updated.
	again, err := s.Provision(p1, ProvisionInput{Name: "Kasir A2", PhoneNumber: "081311110000", Email: "a2@toko.id", DeviceID: ptr("pos-7")})
	require.NoError(t, err)
	assert.False(t, again.Created)
	assert.Equal(t, res.CustomerID, again.CustomerID)
	assert.Equal(t, res.Token, again.Token)
	prof, err = s.Profile(c)
	require.NoError(t, err)
	assert.Equal(t, "Kasir A2", prof.Name)
	assert.Equal(t, "a2@toko.id", prof.Email)
	s.mu.Lock()
	assert.Equal(t, "pos-7", s.accounts[res.CustomerID].deviceID)
	s.mu.Unlock()

	// The old email is free again; the new one is taken, case-insensitively.
	_, err = s.Provision(p1, ProvisionInput{Name: "B", PhoneNumber: "081311110001", Email: "kasir.a@TOKO.id"})
	require.NoError(t, err)
	_, err = s.Provision(p1, ProvisionInput{Name: "C", PhoneNumber: "081311110002", Email: "A2@toko.id"})
	assert.ErrorIs(t, err, errEmailTaken)
	// Keeping one's own email is fine.
	_, err = s.Provision(p1, ProvisionInput{Name: "Kasir A3", PhoneNumber: "081311110000", Email: "A2@TOKO.ID"})
	require.NoError(t, err)
	// Another partner may use it.
	_, err = s.Provision(Caller{PartnerID: 2}, ProvisionInput{Name: "C", PhoneNumber: "081311110000", Email: "a2@toko.id"})
	require.NoError(t, err)

	for _, in := range []ProvisionInput{
		{PhoneNumber: "081311110009", Email: "x@toko.id"},
		{Name: " ", PhoneNumber: "081311110009", Email: "x@toko.id"},
		{Name: "x", Email: "x@toko.id"},
		{Name: "x", PhoneNumber: "081311110009"},
		{Name: "x", PhoneNumber: "0813111", Email: "x@toko.id"},
		{Name: "x", PhoneNumber: "6281311110009", Email: "x@toko.id"},
		{Name: "x", PhoneNumber: "081311110009", Email: "x@toko"},
		{Name: "x", PhoneNumber: "081311110009", Email: "x y@toko.id"},
	} {
		_, err := s.Provision(p1, in)
		assert.ErrorIs(t, err, ErrProvisionIncomplete, "%+v", in)
	}
}

func TestProfile(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	p, err := s.Profile(caller(t, s, referencetest.KeyNusantara, referencetest.TokMain))
	require.NoError(t, err)
	assert.Equal(t, int64(levelMain), p.Level)
	require.NotNil(t, p.IdentityNumber)
	assert.Equal(t, p.Coins/2, p.CoinValue)

	_, err = s.Profile(caller(t, s, referencetest.KeyNusantara, referencetest.TokBroken))
	assert.ErrorIs(t, err, ErrProfileUnavailable)
}

func TestCreatePayment(t *testing.T) {
	t.Parallel()

	t.Run("balance first, coins untouched when balance suffices", func(t *testing.T) {
		s, _ := newTestStore(t)
		c := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
		b0, c0 := wallet(s, 11)
		tx, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "a", true, true))
		require.NoError(t, err)
		assert.Equal(t, Amount{Total: 11550, BalanceUsed: 11550}, tx.Amount)
		b1, c1 := wallet(s, 11)
		assert.Equal(t, b0-11550, b1)
		assert.Equal(t, c0, c1)
		assert.Equal(t, PaymentPaid, tx.PaymentStatus)
		assert.Equal(t, TransactionProcessing, tx.Status)
		assert.Equal(t, internalMethod, tx.Method)
		assert.Equal(t, "INV/20261122/P1/00000002", tx.Number, "the seeded P1/00000001 is skipped")
		tx2, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "b", true, true))
		require.NoError(t, err)
		assert.Equal(t, "INV/20261122/P1/00000003", tx2.Number)
		assert.Greater(t, tx2.ID, tx.ID)
	})
	t.Run("split customer: balance then coins in pairs", func(t *testing.T) {
		s, _ := newTestStore(t)
		c := caller(t, s, referencetest.KeyNusantara, referencetest.TokSplit)
		tx, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "a", true, true))
		require.NoError(t, err)
		assert.Equal(t, Amount{Total: 11550, BalanceUsed: 1500, CoinUsed: 20100, CoinValueUsed: 10050}, tx.Amount)
		b, co := wallet(s, 12)
		assert.Zero(t, b)
		assert.Equal(t, int64(10_000_000-20100), co)
	})
	t.Run("remainder to the gateway with fee", func(t *testing.T) {
		s, _ := newTestStore(t)
		c := caller(t, s, referencetest.KeyNusantara, referencetest.TokSplit)
		// 1.000.000 regular Telkomsel: 1002500 * 1.05 = 1052625; coins 5.000.000 rupiah cover it, so use coins off.
		tx, err := s.CreatePayment(c, payIn(1018, "081234567890", 3, "a", true, false))
		require.NoError(t, err)
		assert.Equal(t, Amount{Total: 1052625, BalanceUsed: 1500, GatewayPayment: 1051125}, tx.Amount)
		assert.Equal(t, int64(1051125+4500), tx.PaymentAmount)
		assert.True(t, tx.PaymentRequired)
		assert.Equal(t, "VA_MANDIRI", tx.Method.Code)
		assert.Equal(t, PaymentUnpaid, tx.PaymentStatus)
		assert.Equal(t, TransactionWaitingPayment, tx.Status)
		assert.NotEmpty(t, tx.GatewayToken)
		assert.Contains(t, tx.RedirectURL, tx.GatewayToken)
	})
	t.Run("gateway method fully covered shows the internal method", func(t *testing.T) {
		s, _ := newTestStore(t)
		tx, err := s.CreatePayment(caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded), payIn(1002, "081234567890", 2, "a", true, false))
		require.NoError(t, err)
		assert.Equal(t, internalMethod, tx.Method)
		assert.False(t, tx.PaymentRequired)
		assert.Zero(t, tx.PaymentAmount)
		assert.Empty(t, tx.GatewayToken)
	})
}

func TestCreatePaymentRefusals(t *testing.T) {
	t.Parallel()

	t.Run("refusals debit nothing and reserve nothing", func(t *testing.T) {
		s, _ := newTestStore(t)
		c := caller(t, s, referencetest.KeyNusantara, referencetest.TokSplit)
		_, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "x", true, false))
		assert.ErrorIs(t, err, ErrInsufficientFunds)
		// 6300 - 1500 balance leaves 4800 for BCA VA, whose minimum is 10000.
		_, err = s.CreatePayment(c, payIn(1001, "081234567890", 2, "x", true, false))
		assert.ErrorIs(t, err, ErrBelowMinimumPayment)
		b, co := wallet(s, 12)
		assert.Equal(t, int64(1500), b)
		assert.Equal(t, int64(10_000_000), co)
		_, err = s.CreatePayment(c, payIn(1002, "081234567890", 0, "x", true, true))
		require.NoError(t, err, "the refused partner_trx_id was not reserved")
	})
	t.Run("order of checks", func(t *testing.T) {
		s, _ := newTestStore(t)
		c := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
		_, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "dup", true, false))
		require.NoError(t, err)
		cases := []struct {
			name string
			in   CreatePaymentInput
			err  error
		}{
			{"product before all", CreatePaymentInput{}, errProductRequired},
			{"msisdn before method", CreatePaymentInput{ProductID: 1}, errMsisdnRequired},
			{"method before trx id", CreatePaymentInput{ProductID: 1, Msisdn: "x"}, errMethodRequired},
			{"trx id before lengths", CreatePaymentInput{ProductID: 1, Msisdn: "x", PaymentMethodID: ptr(int64(0)), ShiftCode: ptr(strings.Repeat("s", 51))}, errTrxIDRequired},
			{"trx id length before shift code", CreatePaymentInput{ProductID: 1, Msisdn: "x", PaymentMethodID: ptr(int64(0)), PartnerTrxID: strings.Repeat("é", 51), ShiftCode: ptr(strings.Repeat("s", 51))}, errTrxIDTooLong},
			{"50 runes are fine", CreatePaymentInput{ProductID: 1002, Msisdn: "081234567890", PaymentMethodID: ptr(int64(0)), UseBalance: true, PartnerTrxID: strings.Repeat("é", 50), ShiftCode: ptr(strings.Repeat("ş", 50))}, nil},
			{"shift code before msisdn format", CreatePaymentInput{ProductID: 1, Msisdn: "x", PaymentMethodID: ptr(int64(0)), PartnerTrxID: "t", ShiftCode: ptr(strings.Repeat("s", 51))}, errShiftCodeTooLong},
			{"msisdn format before duplicate", payIn(1002, "0812", 0, "dup", true, false), errPhoneInvalid},
			{"duplicate before method", payIn(1002, "081234567890", 9, "dup", true, false), ErrTrxIDUsed},
			{"duplicate before product", payIn(999999, "081234567890", 0, "dup", true, false), ErrTrxIDUsed},
			{"method before product", payIn(999999, "081234567890", 9, "n1", true, false), ErrMethodUnavailable},
			{"internal without funds before product", payIn(999999, "081234567890", 0, "n2", false, false), errInternalMethodNoFunds},
			{"unknown product", payIn(999999, "081234567890", 0, "n3", true, false), errProductNotFound},
			{"inactive product", payIn(1017, "081234567890", 0, "n4", true, false), ErrProductUnavailable},
			{"inactive sub category", payIn(3001, "081234567890", 0, "n5", true, false), ErrProductUnavailable},
			{"unprocessable", payIn(9001, "081234567890", 0, "n6", true, false), ErrProductDisrupted},
		}
		for _, tc := range cases {
			_, err := s.CreatePayment(c, tc.in)
			if tc.err == nil {
				assert.NoError(t, err, tc.name)
				continue
			}
			assert.ErrorIs(t, err, tc.err, tc.name)
		}
		nonaktif := caller(t, s, referencetest.KeyNonaktif, referencetest.TokNonaktif)
		_, err = s.CreatePayment(nonaktif, payIn(1002, "081234567890", 0, "n7", true, false))
		require.Error(t, err)
		assert.Equal(t, pricePlanMessage("Kemitraan"), err.Error())
	})
}

func TestCreatePaymentPriceAndStatus(t *testing.T) {
	t.Parallel()

	t.Run("price recalculated from plan and promotion", func(t *testing.T) {
		s, _ := newTestStore(t)
		promo := s.cat.products[1008] // Telkomsel 50.000 has a promotion
		require.NotNil(t, promo.Promotion)
		tx, err := s.CreatePayment(caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded), CreatePaymentInput{
			ProductID: 1008, Msisdn: "081234567890", PaymentMethodID: ptr(int64(0)), UseBalance: true,
			PartnerTrxID: "promo", PromotionID: ptr(int64(77)), Parts: map[string]any{"x": 1},
		})
		require.NoError(t, err)
		assert.Equal(t, finalPrice(promo.BasePrice, 500, promo.Promotion), tx.Amount.Total)
		tx2, err := s.CreatePayment(caller(t, s, referencetest.KeyWarung, referencetest.TokWarungC), payIn(1008, "081234567890", 0, "promo", true, false))
		require.NoError(t, err)
		assert.Equal(t, finalPrice(promo.BasePrice, 200, promo.Promotion), tx2.Amount.Total)
		assert.Equal(t, "INV/20261122/P2/00000001", tx2.Number)
	})
	t.Run("transitions through status", func(t *testing.T) {
		s, clock := newTestStore(t, WithSettleAfter(5*time.Second), WithExpireAfter(time.Minute))
		c := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
		empty := caller(t, s, referencetest.KeyNusantara, referencetest.TokEmpty)
		_, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "ok", true, false))
		require.NoError(t, err)
		_, err = s.CreatePayment(c, payIn(9002, "081534567890", 0, "fail", true, false))
		require.NoError(t, err)
		_, err = s.CreatePayment(empty, payIn(1002, "081234567890", 1, "unpaid", true, true))
		require.NoError(t, err)
		_, err = s.CreatePayment(c, payIn(3001+0, "081234567890", 0, "x", true, false))
		require.Error(t, err)
		// A product without SN: paket-data with an odd quota.
		_, err = s.CreatePayment(c, payIn(2001, "081234567890", 0, "nosn", true, false))
		require.NoError(t, err)

		look := func(cl Caller, id string) Transaction {
			tx, err := s.PaymentStatus(cl, StatusQuery{PartnerTrxID: &id})
			require.NoError(t, err)
			return tx
		}
		clock.Advance(4 * time.Second)
		assert.Equal(t, TransactionProcessing, look(c, "ok").Status)
		assert.Empty(t, look(c, "ok").SerialNumber)
		clock.Advance(time.Second)
		ok := look(c, "ok")
		assert.Equal(t, PaymentPaid, ok.PaymentStatus)
		assert.Equal(t, TransactionSuccess, ok.Status)
		assert.NotEmpty(t, ok.SerialNumber)
		assert.WithinDuration(t, referencetest.T0.Add(5*time.Second), ok.UpdatedAt, 0)
		assert.Equal(t, TransactionFailed, look(c, "fail").Status)
		assert.Empty(t, look(c, "fail").SerialNumber)
		assert.Equal(t, TransactionSuccess, look(c, "nosn").Status)
		assert.Empty(t, look(c, "nosn").SerialNumber)
		assert.Equal(t, PaymentUnpaid, look(empty, "unpaid").PaymentStatus)
		clock.Advance(time.Minute)
		unpaid := look(empty, "unpaid")
		assert.Equal(t, PaymentExpired, unpaid.PaymentStatus)
		assert.Equal(t, TransactionFailed, unpaid.Status)
		assert.WithinDuration(t, referencetest.T0.Add(time.Minute), unpaid.UpdatedAt, 0)
	})
}

func TestPaymentStatus(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	c := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
	mainC := caller(t, s, referencetest.KeyNusantara, referencetest.TokMain)
	other := caller(t, s, referencetest.KeyWarung, referencetest.TokWarung)
	tx, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "st", true, false))
	require.NoError(t, err)

	cases := []struct {
		name string
		c    Caller
		q    StatusQuery
		err  error
	}{
		{"by trx id", c, StatusQuery{PartnerTrxID: ptr("st")}, nil},
		{"by number", c, StatusQuery{TransactionNumber: ptr(tx.Number)}, nil},
		{"both matching", c, StatusQuery{PartnerTrxID: ptr("st"), TransactionNumber: ptr(tx.Number)}, nil},
		{"blank one ignored", c, StatusQuery{PartnerTrxID: ptr(""), TransactionNumber: ptr(tx.Number)}, nil},
		{"main account of the partner", mainC, StatusQuery{PartnerTrxID: ptr("st")}, nil},
		{"both mismatching", c, StatusQuery{PartnerTrxID: ptr("seed-unformed-0001"), TransactionNumber: ptr(tx.Number)}, ErrTrxNotFound},
		{"other partner by trx id", other, StatusQuery{PartnerTrxID: ptr("st")}, ErrTrxNotFound},
		{"other partner by number", other, StatusQuery{TransactionNumber: ptr(tx.Number)}, ErrTrxNotFound},
		{"none", c, StatusQuery{}, errStatusQueryEmpty},
		{"blank", c, StatusQuery{PartnerTrxID: ptr(" ")}, errStatusQueryEmpty},
		{"unformed", c, StatusQuery{PartnerTrxID: ptr("seed-unformed-0001")}, ErrPaymentNotFormed},
		{"unformed by number", c, StatusQuery{TransactionNumber: ptr("INV/20261101/P1/00000001")}, ErrPaymentNotFormed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.PaymentStatus(tc.c, tc.q)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tx.ID, got.ID)
			assert.Equal(t, "Telkomsel", got.Operator.Name)
		})
	}
}
