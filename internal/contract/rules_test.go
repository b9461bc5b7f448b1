package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/api"
)

func TestCheckContentType(t *testing.T) {
	t.Parallel()
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"} {
		assert.NoError(t, CheckContentType(ct), ct)
	}
	for _, ct := range []string{"", "text/plain", "text/plain; charset=utf-8", "application/json-seq", "application/problem+json", "text/html"} {
		assert.ErrorIs(t, CheckContentType(ct), ErrContentType, ct)
	}
}

func TestCheckTotalPages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		total, perPage, pages int64
		ok                    bool
	}{
		{266, 100, 3, true}, {266, 3, 89, true}, {9, 100, 1, true}, {9, 9, 1, true}, {300, 100, 3, true},
		{0, 100, 0, true}, {0, 100, 1, true},
		{266, 100, 2, false}, {266, 3, 88, false}, {9, 100, 0, false}, {300, 100, 4, false}, {0, 100, 2, false},
	}
	for _, tc := range cases {
		err := CheckTotalPages(tc.total, tc.perPage, tc.pages)
		if tc.ok {
			assert.NoError(t, err, "%+v", tc)
		} else {
			assert.ErrorIs(t, err, ErrTotalPages, "%+v", tc)
		}
	}
}

func TestCheckWalletWithinTotal(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckWalletWithinTotal(api.Amount{Total: 11550, BalanceUsed: 1500, CoinUsed: 20100, CoinValueUsed: 10050}))
	assert.NoError(t, CheckWalletWithinTotal(api.Amount{Total: 11550, GatewayPayment: 13650}), "a fee on top of the gateway payment is free")
	err := CheckWalletWithinTotal(api.Amount{Total: 11550, BalanceUsed: 1500, CoinUsed: 10_000_000, CoinValueUsed: 5_000_000})
	assert.ErrorIs(t, err, errWalletOverTotal)
	assert.ErrorIs(t, checkAmount(api.Amount{Total: 100, CoinUsed: 400, CoinValueUsed: 200}), errWalletOverTotal)
	assert.NoError(t, checkAmount(api.Amount{Total: 11150, GatewayPayment: 13650}), "a fee on top of the gateway payment is free")
}

func TestCheckRefusalTakesNothing(t *testing.T) {
	t.Parallel()
	w := Wallet{Balance: 1000, Coins: 40}
	assert.NoError(t, CheckRefusalTakesNothing(w, w))
	assert.ErrorIs(t, CheckRefusalTakesNothing(w, Wallet{Balance: 1000, Coins: 38}), errRefusalTook)
	assert.ErrorIs(t, CheckRefusalTakesNothing(w, Wallet{Balance: 900, Coins: 40}), errRefusalTook)
}

func TestCheckCoinsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckCoinsOnlyWhenAsked(api.Amount{Total: 100, BalanceUsed: 40, GatewayPayment: 60}))
	assert.ErrorIs(t, CheckCoinsOnlyWhenAsked(api.Amount{Total: 100, CoinUsed: 20, CoinValueUsed: 10, GatewayPayment: 90}), errCoinsNotAsked)
}

func TestCheckRecord(t *testing.T) {
	t.Parallel()
	created := Record{PartnerTrxID: "trx-1", TransactionNumber: "INV/1", ProductID: 1001, Amount: api.Amount{Total: 6300, BalanceUsed: 6300}}
	assert.NoError(t, CheckRecordNamed(created, created))
	assert.NoError(t, CheckRecordAsCreated(created, created))
	other := created
	other.TransactionNumber = "INV/2"
	assert.ErrorIs(t, CheckRecordNamed(created, other), ErrRecordNotNamed)
	assert.NoError(t, CheckRecordAsCreated(created, other), "the ids are CheckRecordNamed's")
	drifted := created
	drifted.ProductID, drifted.Amount.Total = 1002, 6301
	err := CheckRecordAsCreated(created, drifted)
	assert.ErrorIs(t, err, errRecordNotAsCreated)
	assert.Contains(t, err.Error(), "product.id is 1002, but the payment was created with 1001; amount.total is 6301, but the payment was created with 6300")
}

func TestCheckAnswer(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckAnswer(409, MsgDuplicate, 409, MsgDuplicate))
	assert.EqualError(t, CheckAnswer(200, MsgSynced, 201, MsgSynced), `got status 200 and the message "`+MsgSynced+`"`)
	assert.Error(t, CheckAnswer(409, MsgDuplicate+" ", 409, MsgDuplicate))
}

func TestCheckPageSizeAndSameCustomer(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckPageSize(5, 5))
	assert.ErrorIs(t, CheckPageSize(20, 1), errPageOverSize)
	assert.NoError(t, CheckSameCustomer(39, 39))
	assert.ErrorIs(t, CheckSameCustomer(39, 41), errNotSameCustomer)
}

func TestCheckCoinValue(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckCoinValue(41, 20))
	assert.NoError(t, CheckCoinValue(41, 21), "an odd coin rounded up is a reading, not the document")
	assert.ErrorIs(t, CheckCoinValue(40, 40), errCoinValue)
}

func TestCheckCoinsCoverRemainder(t *testing.T) {
	t.Parallel()
	w := Exactly(Wallet{Balance: 1000, Coins: 3001})
	assert.NoError(t, CheckCoinsCoverRemainder(w, api.Amount{Total: 5000, BalanceUsed: 1000, CoinUsed: 3000, CoinValueUsed: 1500, GatewayPayment: 2500}))
	assert.NoError(t, CheckCoinsCoverRemainder(w, api.Amount{Total: 1200, BalanceUsed: 1000, CoinUsed: 400, CoinValueUsed: 200}))
	err := CheckCoinsCoverRemainder(w, api.Amount{Total: 5000, BalanceUsed: 1000, GatewayPayment: 4000})
	assert.ErrorIs(t, err, errCoinsShort)
	assert.Contains(t, err.Error(), "coins worth 0 rupiah were taken where 1500 were due")
	assert.ErrorIs(t, CheckCoinsCoverRemainder(w, api.Amount{Total: 1200, BalanceUsed: 1000, CoinUsed: 600, CoinValueUsed: 300}), errCoinsShort)
	// After a mixed payment that took 1000 coins the wallet may still hold.
	r := w.After(api.Amount{Total: 6000, BalanceUsed: 1000, CoinUsed: 1000, CoinValueUsed: 500, GatewayPayment: 4500})
	assert.NoError(t, CheckCoinsCoverRemainder(r, api.Amount{Total: 5000, CoinUsed: 2000, CoinValueUsed: 1000, GatewayPayment: 4000}))
	assert.NoError(t, CheckCoinsCoverRemainder(r, api.Amount{Total: 5000, CoinUsed: 3000, CoinValueUsed: 1500, GatewayPayment: 3500}))
	assert.ErrorIs(t, CheckCoinsCoverRemainder(r, api.Amount{Total: 5000, CoinUsed: 1000, CoinValueUsed: 500, GatewayPayment: 4500}), errCoinsShort)
}

func TestCheckNotShown(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckNotShown(404, nil, "a-1", ""))
	assert.NoError(t, CheckNotShown(401, map[string]any{}, "a-1", ""))
	assert.NoError(t, CheckNotShown(404, map[string]any{"partner_trx_id": "a-1"}, "a-1", ""), "an echo of the question shows nothing")
	assert.NoError(t, CheckNotShown(404, map[string]any{"transaction_number": "INV/1"}, "", "INV/1"))
	assert.ErrorIs(t, CheckNotShown(200, nil, "a-1", ""), errShownToOtherPartner)
	assert.ErrorIs(t, CheckNotShown(404, map[string]any{"partner_trx_id": "a-1", "transaction_number": "INV/1"}, "a-1", ""), errShownToOtherPartner)
	assert.ErrorIs(t, CheckNotShown(404, map[string]any{"partner_trx_id": "a-2"}, "a-1", ""), errShownToOtherPartner)
	assert.ErrorIs(t, CheckNotShown(404, map[string]any{"partner_trx_id": "a-1"}, "", "INV/1"), errShownToOtherPartner)
}

func TestCheckAnswerEither(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckAnswerEither(409, MsgDuplicate, 409, MsgDuplicate, 400, MsgInternalMethodFlag))
	assert.NoError(t, CheckAnswerEither(400, MsgInternalMethodFlag, 409, MsgDuplicate, 400, MsgInternalMethodFlag))
	assert.Error(t, CheckAnswerEither(409, MsgInternalMethodFlag, 409, MsgDuplicate, 400, MsgInternalMethodFlag))
	assert.Error(t, CheckAnswerEither(200, MsgCreated, 409, MsgDuplicate, 400, MsgInternalMethodFlag))
}

func TestCheckTransactionNamed(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckTransactionNamed("INV/20261122/P1/7", "a-1", "a-1"))
	assert.ErrorIs(t, CheckTransactionNamed("INV-20261122", "a-1", "a-1"), ErrTransactionNamed)
	assert.ErrorIs(t, CheckTransactionNamed("INV/20261122/P1/7", "a-2", "a-1"), ErrTransactionNamed)
}

func TestCheckCoinValueRoundsDown(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckCoinValueRoundsDown(7, 3))
	assert.NoError(t, CheckCoinValueRoundsDown(8, 4))
	assert.ErrorIs(t, CheckCoinValueRoundsDown(7, 4), errCoinValueRounded)
}

func TestCheckCreated(t *testing.T) {
	t.Parallel()
	ok := Created{Status: true, Message: MsgCreated, TransactionNumber: "INV/20261122/P1/7", PartnerTrxID: "a-1",
		Amount: api.Amount{Total: 6300, BalanceUsed: 1500, GatewayPayment: 4800}}
	assert.NoError(t, CheckCreated(ok, "a-1", UnknownFee))
	assert.NoError(t, CheckCreated(ok, "a-1", 0))
	cases := map[string]struct {
		edit func(*Created)
		want error
		rule string
	}{
		"status false":        {func(c *Created) { c.Status = false }, ErrCreatedAnswer, ErrCreatedAnswer.Error()},
		"another message":     {func(c *Created) { c.Message = "OK" }, ErrCreatedAnswer, ErrCreatedAnswer.Error()},
		"no slash":            {func(c *Created) { c.TransactionNumber = "INV-7" }, ErrTransactionNamed, ErrTransactionNamed.Error()},
		"another id echoed":   {func(c *Created) { c.PartnerTrxID = "a-2" }, ErrTransactionNamed, ErrTransactionNamed.Error()},
		"parts do not add":    {func(c *Created) { c.Amount.GatewayPayment = 4000 }, errAmountSum, errAmountSum.Error()},
		"more than the total": {func(c *Created) { c.Amount.BalanceUsed = 7000 }, errWalletOverTotal, errWalletOverTotal.Error()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := ok
			tc.edit(&c)
			err := CheckCreated(c, "a-1", UnknownFee)
			require.ErrorIs(t, err, tc.want)
			assert.Equal(t, tc.rule, RuleOf(err), "the rule, without the figures")
		})
	}
	withFee := ok
	withFee.Amount.GatewayPayment = 5300
	assert.NoError(t, CheckCreated(withFee, "a-1", UnknownFee), "a fee on top, the method's fee unknown")
	assert.ErrorIs(t, CheckCreated(withFee, "a-1", 1000), errAmountSum, "a fee the method does not charge")
}

func TestCheckNoServerFault(t *testing.T) {
	t.Parallel()
	assert.NoError(t, CheckNoServerFault(OpGetCustomerProfile, 200, MsgOK))
	assert.NoError(t, CheckNoServerFault(OpCreatePayment, 422, "x"), "not a 5xx: the other checks judge it")
	assert.NoError(t, CheckNoServerFault(OpGetCustomerProfile, 500, MsgProfileUnloaded))
	assert.NoError(t, CheckNoServerFault(OpSyncProducts, 500, "Terjadi kesalahan sistem."), "the message follows the server error")
	assert.NoError(t, CheckNoServerFault(OpListProducts, 500, "database timeout"))
	for _, tc := range []struct {
		op      string
		status  int
		message string
	}{
		{OpGetCustomerProfile, 500, "Terjadi kesalahan sistem."},
		{OpSyncProducts, 500, " "},
		{OpCreatePayment, 500, MsgProfileUnloaded},
		{OpGetPaymentStatus, 500, "x"},
		{OpGetCustomerProfile, 503, MsgProfileUnloaded},
		{OpListProducts, 502, "x"},
	} {
		assert.ErrorIs(t, CheckNoServerFault(tc.op, tc.status, tc.message), errServerFault, "%+v", tc)
	}
}
