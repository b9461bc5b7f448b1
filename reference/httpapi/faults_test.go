package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/referencetest"
)

// barrier returns a yield function that holds the first n callers until
// all n have arrived, so a fault's lock gap is crossed by both goroutines
// deterministically. A caller gives up after a minute, so that a check
// whose second caller never comes fails (its race not shown) rather than
// hangs; a loaded machine never delays the second that long.
func barrier(n int) func() {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return func() {
		mu.Lock()
		arrived++
		if arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(time.Minute):
		}
	}
}

// faultChecks shows, for each fault, the departure from the contract it
// causes. Each check fails against a store without the fault (see
// TestFaultChecksFailWithoutFault).
var faultChecks = map[reference.Fault]func(t assert.TestingT, e *testEnv) bool{
	reference.FaultThrottledButProcessed: func(t assert.TestingT, e *testEnv) bool {
		a := e.pay(funded, payBody(1002, "081234567890", 0, "throttled", true, false))
		b := e.pay(funded, payBody(1002, "081234567890", 0, "throttled", true, false))
		return assert.Equal(t, http.StatusTooManyRequests, a.Status) && assert.Equal(t, http.StatusConflict, b.Status)
	},
	reference.FaultMessageTypo: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, payBody(1002, "081234567890", 0, "typo", true, false))
		return assert.Equal(t, "Pembayaran berhasil diproses", r.message())
	},
	reference.FaultProvisionCreatedAs200: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":"n","phone_number":"081299990001","email":"n@toko.id"}`)
		return assert.Equal(t, http.StatusOK, r.Status)
	},
	reference.FaultCoinsBeforeBalance: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, payBody(1002, "081234567890", 0, "coins-first", true, true))
		return assert.Positive(t, r.num("data", "transaction", "amount", "coin_used")) &&
			assert.Zero(t, r.num("data", "transaction", "amount", "balance_used"))
	},
	reference.FaultCoinValueNotHalved: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/customer/profile", creds{referencetest.KeyNusantara, referencetest.TokSplit}, "")
		return assert.Equal(t, r.num("data", "coin", "available"), r.num("data", "coin", "available_value"))
	},
	reference.FaultDuplicateTrxAccepted: func(t assert.TestingT, e *testEnv) bool {
		a := e.pay(funded, payBody(1002, "081234567890", 0, "twice", true, false))
		b := e.pay(funded, payBody(1002, "081234567890", 0, "twice", true, false))
		return assert.Equal(t, http.StatusOK, a.Status) && assert.Equal(t, http.StatusOK, b.Status) &&
			assert.NotEqual(t, a.str("data", "transaction", "transaction_number"), b.str("data", "transaction", "transaction_number"))
	},
	reference.FaultRacyDuplicateCheck: func(t assert.TestingT, e *testEnv) bool {
		c := reference.Caller{PartnerID: 1, AccountID: 11}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() { _, errs[i] = e.store.CreatePayment(c, payIn(1002, "081234567890", 0, "racy", true, false)) })
		}
		wg.Wait()
		return assert.NoError(t, errs[0]) && assert.NoError(t, errs[1]) // both succeed: a duplicate
	},
	reference.FaultLostUpdateDebit: func(t assert.TestingT, e *testEnv) bool {
		c := reference.Caller{PartnerID: 1, AccountID: 11}
		b0, _ := wallet(e.tb, e.store, 11)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				_, _ = e.store.CreatePayment(c, payIn(1002, "081234567890", 0, fmt.Sprint("lost-", i), true, false))
			})
		}
		wg.Wait()
		b1, _ := wallet(e.tb, e.store, 11)
		return assert.Equal(t, b0-11550, b1, "two payments, one debit")
	},
	reference.FaultSyncOpenToAnyToken: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/sync?sub_category=prabayar", funded, "")
		return assert.Equal(t, http.StatusOK, r.Status)
	},
	reference.FaultStatusCrossPartner: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/payment/status?partner_trx_id=seed-unformed-0001", creds{referencetest.KeyWarung, referencetest.TokWarung}, "")
		return assert.Equal(t, "Transaksi payment belum terbentuk.", r.message())
	},
	reference.FaultTokenAcrossPartners: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/customer/profile", creds{referencetest.KeyWarung, referencetest.TokFunded}, "")
		return assert.Equal(t, http.StatusOK, r.Status)
	},
	reference.FaultProductWithoutLogo: func(t assert.TestingT, e *testEnv) bool {
		e.skipValidation = true
		r := e.do("GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", funded, "")
		p := r.get("data", "products").([]any)[0].(map[string]any)
		_, has := p["operator"].(map[string]any)["logo"]
		return assert.False(t, has)
	},
	reference.FaultCustomerIDAsString: func(t assert.TestingT, e *testEnv) bool {
		e.skipValidation = true
		r := e.do("GET", "/client/v2/customer/profile", funded, "")
		return assert.IsType(t, "", r.get("data", "customer", "id"))
	},
	reference.FaultPaginationOffByOne: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/sync?sub_category=prabayar&page=1&pageSize=20", main1, "")
		first := r.get("data", "products").([]any)[0].(map[string]any)["id"]
		return assert.Equal(t, float64(1021), first)
	},
	reference.FaultInternalMethodWithoutFunds: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, payBody(1002, "081234567890", 0, "nofunds", false, false))
		return assert.Equal(t, http.StatusOK, r.Status)
	},
	reference.FaultNoTrxIDLimit: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, payBody(1002, "081234567890", 0, strings.Repeat("x", 51), true, false))
		return assert.Equal(t, http.StatusOK, r.Status)
	},
	reference.FaultNoShiftCodeLimit: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"shift","shift_code":"`+strings.Repeat("s", 51)+`"}`)
		return assert.Equal(t, http.StatusOK, r.Status)
	},
	reference.FaultNoPageSizeLimit: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/sync?sub_category=prabayar&pageSize=150", main1, "")
		return assert.Equal(t, http.StatusOK, r.Status) && assert.Len(t, r.get("data", "products"), 150)
	},
	reference.FaultPhoneNotValidated: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/list?phone_number=0812&sub_category=prabayar", funded, "")
		return assert.Equal(t, http.StatusOK, r.Status)
	},
	reference.FaultProvisionNewIDOnSync: func(t assert.TestingT, e *testEnv) bool {
		body := `{"name":"n","phone_number":"081299990002","email":"n2@toko.id"}`
		a := e.do("POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, body)
		b := e.do("POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, body)
		return assert.NotEqual(t, a.num("data", "customer_id"), b.num("data", "customer_id"))
	},
	reference.FaultDuplicateEmailAccepted: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":"n","phone_number":"081299990003","email":"menteng@tokonusantara.example"}`)
		return assert.Equal(t, http.StatusCreated, r.Status)
	},
	reference.FaultProductTokenMessage: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", creds{referencetest.KeyNusantara, "tok-nope"}, "")
		return assert.Equal(t, "Token tidak valid.", r.message())
	},
	reference.FaultStatusEmptyAs404: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/payment/status", funded, "")
		return assert.Equal(t, http.StatusNotFound, r.Status)
	},
	reference.FaultBasePriceCharged: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, payBody(1002, "081234567890", 0, "base", true, false))
		return assert.Equal(t, int64(11000), r.num("data", "transaction", "amount", "total"))
	},
	reference.FaultTrxNumberWithoutSlash: func(t assert.TestingT, e *testEnv) bool {
		e.skipValidation = true
		r := e.pay(funded, payBody(1002, "081234567890", 0, "slash", true, false))
		return assert.NotContains(t, r.str("data", "transaction", "transaction_number"), "/") &&
			assert.NotEmpty(t, r.str("data", "transaction", "transaction_number"))
	},
	reference.FaultCoveredPaymentUnpaid: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, payBody(1002, "081234567890", 0, "covered", true, false))
		return assert.Equal(t, "UNPAID", r.str("data", "transaction", "payment_status"))
	},
	reference.FaultInactiveSubCategoryServed: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/list?phone_number=081234567890&sub_category=paket-sms", funded, "")
		return assert.Equal(t, "OK", r.message())
	},
	reference.FaultGatewayRemainderHidden: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(creds{referencetest.KeyNusantara, referencetest.TokEmpty}, payBody(1002, "081234567890", 1, "hidden", true, true))
		return assert.Equal(t, http.StatusOK, r.Status) &&
			assert.Zero(t, r.num("data", "transaction", "amount", "gateway_payment")) &&
			assert.Equal(t, false, r.get("data", "payment", "is_required"))
	},
	reference.FaultGatewayPaymentsRefused: func(t assert.TestingT, e *testEnv) bool {
		b0, c0 := wallet(e.tb, e.store, 11)
		r := e.pay(funded, payBody(1002, "081234567890", 1, "refused", true, true))
		b1, c1 := wallet(e.tb, e.store, 11)
		return assert.Equal(t, http.StatusUnprocessableEntity, r.Status) && assert.Equal(t, "Saldo tidak mencukupi.", r.str("message")) &&
			assert.Equal(t, [2]int64{b0, c0}, [2]int64{b1, c1}, "nothing taken")
	},
	reference.FaultPricePlanIgnored: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", creds{referencetest.KeyNonaktif, referencetest.TokNonaktif}, "")
		return assert.Equal(t, http.StatusOK, r.Status)
	},
	reference.FaultPageSizeIgnored: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/sync?sub_category=prabayar&pageSize=7", main1, "")
		return assert.NotEqual(t, int64(7), r.num("pagination", "perPage"))
	},
	reference.FaultEmailNotValidated: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":"n","phone_number":"081299990004","email":"bukan-email"}`)
		return assert.Equal(t, http.StatusCreated, r.Status)
	},
	reference.FaultInactiveProductSold: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, payBody(1017, "081234567890", 0, "inactive", true, false))
		return assert.Equal(t, http.StatusOK, r.Status)
	},
	reference.FaultInternalMethodMisnamed: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, payBody(1002, "081234567890", 0, "named", true, false))
		return assert.NotEqual(t, "BALANCE", r.str("data", "payment_method", "code"))
	},
	reference.FaultAccountsAcrossPartners: func(t assert.TestingT, e *testEnv) bool {
		body := `{"name":"n","phone_number":"081299990005","email":"n5@toko.id"}`
		a := e.do("POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, body)
		b := e.do("POST", "/client/v2/customer/provision_account", creds{referencetest.KeyWarung, ""}, body)
		return assert.Equal(t, http.StatusCreated, a.Status) && assert.Equal(t, http.StatusBadRequest, b.Status)
	},
	reference.FaultNullOptionalRefused: func(t assert.TestingT, e *testEnv) bool {
		body := `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"partner_trx_id":"null-promo","use_balance":true,"promotion_id":null}`
		r := e.pay(funded, body)
		return assert.Equal(t, http.StatusBadRequest, r.Status)
	},
	reference.FaultLengthInBytes: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, payBody(1002, "081234567890", 0, strings.Repeat("é", 50), true, false))
		return assert.Equal(t, http.StatusBadRequest, r.Status)
	},
	reference.FaultListOnlyPrabayar: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/list?phone_number=081234567890&sub_category=paket-data", funded, "")
		return assert.Equal(t, http.StatusBadRequest, r.Status)
	},
	reference.FaultRetryDebitsAgain: func(t assert.TestingT, e *testEnv) bool {
		b0, _ := wallet(e.tb, e.store, 11)
		a := e.pay(funded, payBody(1002, "081234567890", 0, "again", true, false))
		b := e.pay(funded, payBody(1002, "081234567890", 0, "again", true, false))
		b1, _ := wallet(e.tb, e.store, 11)
		return assert.Equal(t, http.StatusOK, a.Status) && assert.Equal(t, http.StatusConflict, b.Status) &&
			assert.Equal(t, b0-2*11550, b1, "one payment, two debits")
	},
	reference.FaultStaleProfile: func(t assert.TestingT, e *testEnv) bool {
		before := e.do("GET", "/client/v2/customer/profile", funded, "")
		paid := e.pay(funded, payBody(1002, "081234567890", 0, "stale", true, false))
		after := e.do("GET", "/client/v2/customer/profile", funded, "")
		return assert.Equal(t, http.StatusOK, paid.Status) &&
			assert.Equal(t, before.num("data", "balance", "available"), after.num("data", "balance", "available"), "the read missed the payment")
	},
	reference.FaultJSONLabelledText: func(t assert.TestingT, e *testEnv) bool {
		e.skipValidation = true
		r := e.do("GET", "/client/v2/payment/methods", funded, "")
		return assert.Equal(t, http.StatusOK, r.Status) &&
			assert.True(t, strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain"), r.Header.Get("Content-Type"))
	},
	reference.FaultTotalPagesRoundedDown: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/sync?sub_category=prabayar&page=1&pageSize=20", main1, "")
		total, pages := r.num("pagination", "total"), r.num("pagination", "totalPages")
		return assert.NotZero(t, total%20, "a last page that is not full") && assert.Equal(t, total/20, pages)
	},
	reference.FaultCoinsBeyondTotal: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(creds{referencetest.KeyNusantara, referencetest.TokSplit}, payBody(1002, "081234567890", 0, "all-coins", true, true))
		return assert.Equal(t, http.StatusOK, r.Status) &&
			assert.Greater(t, r.num("data", "transaction", "amount", "balance_used")+r.num("data", "transaction", "amount", "coin_value_used"),
				r.num("data", "transaction", "amount", "total"))
	},
	reference.FaultCoinsWithoutUseCoin: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, payBody(1002, "081234567890", 1, "coins-unasked", false, false))
		return assert.Equal(t, http.StatusOK, r.Status) && assert.Positive(t, r.num("data", "transaction", "amount", "coin_used"))
	},
	reference.FaultErrorsAsText: func(t assert.TestingT, e *testEnv) bool {
		e.skipValidation = true
		r := e.do("GET", "/client/v2/nope", funded, "")
		return assert.Equal(t, http.StatusNotFound, r.Status) &&
			assert.True(t, strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain"))
	},

	// The faults only the generated mode finds (generative/faults_test.go).
	reference.FaultMultiByteShiftCodePanics: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"shift-mb","shift_code":"`+strings.Repeat("日", 51)+`"}`)
		return assert.Equal(t, http.StatusInternalServerError, r.Status)
	},
	reference.FaultPromotionZeroCrashes: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"promo-0","promotion_id":0}`)
		return assert.Equal(t, http.StatusInternalServerError, r.Status)
	},
	reference.FaultEmptyPartsCrashes: func(t assert.TestingT, e *testEnv) bool {
		r := e.pay(funded, `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"parts-empty","parts":{}}`)
		return assert.Equal(t, http.StatusInternalServerError, r.Status)
	},
	reference.FaultInactiveProductDebitKept: func(t assert.TestingT, e *testEnv) bool {
		before := e.do("GET", "/client/v2/customer/profile", funded, "").num("data", "balance", "available")
		r := e.pay(funded, payBody(1017, "081234567890", 0, "inactive-debit", true, false))
		after := e.do("GET", "/client/v2/customer/profile", funded, "").num("data", "balance", "available")
		return assert.NotEqual(t, http.StatusOK, r.Status) && assert.Less(t, after, before)
	},
	reference.FaultZeroPageSizeCrashes: func(t assert.TestingT, e *testEnv) bool {
		r := e.do("GET", "/client/v2/product/sync?sub_category=prabayar&pageSize=0", creds{referencetest.KeyNusantara, referencetest.TokMain}, "")
		return assert.Equal(t, http.StatusInternalServerError, r.Status)
	},
	reference.FaultStaleWalletTakesCoins: func(t assert.TestingT, e *testEnv) bool {
		e.do("GET", "/client/v2/customer/profile", funded, "")
		var r reply
		for i := range 3 {
			r = e.pay(funded, payBody(1002, "081234567890", 0, fmt.Sprintf("stale-%d", i), true, true))
		}
		return assert.Positive(t, r.num("data", "transaction", "amount", "coin_used"))
	},
	reference.FaultDuplicateOverwritesProduct: func(t assert.TestingT, e *testEnv) bool {
		e.pay(funded, payBody(1002, "081234567890", 0, "dup-product", true, false))
		e.pay(funded, payBody(1003, "081234567890", 0, "dup-product", true, false))
		r := e.do("GET", "/client/v2/payment/status?partner_trx_id=dup-product", funded, "")
		return assert.Equal(t, int64(1003), r.num("data", "product", "id"))
	},
	reference.FaultReprovisionResetsWallet: func(t assert.TestingT, e *testEnv) bool {
		e.do("POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""},
			`{"name":"Cabang Menteng","phone_number":"081200000011","email":"menteng@tokonusantara.example"}`)
		r := e.do("GET", "/client/v2/customer/profile", funded, "")
		return assert.Zero(t, r.num("data", "balance", "available"))
	},
	reference.FaultStatusAmountDrifts: func(t assert.TestingT, e *testEnv) bool {
		e.pay(funded, payBody(1002, "081234567890", 0, "drift", true, false))
		var totals []int64
		for range 3 {
			totals = append(totals, e.do("GET", "/client/v2/payment/status?partner_trx_id=drift", funded, "").num("data", "amount", "total"))
		}
		return assert.NotEqual(t, totals[0], totals[2])
	},
	reference.FaultMixedWalletCredited: func(t assert.TestingT, e *testEnv) bool {
		// 6300 - 1500 balance leaves 4800 for QRIS.
		paid := e.pay(split, payBody(1001, "081234567890", 1, "credited", true, false))
		b, _ := wallet(e.tb, e.store, 12)
		return assert.Equal(t, http.StatusOK, paid.Status) && assert.Equal(t, int64(3000), b, "1500 reported taken, 1500 added")
	},
	reference.FaultMixedWalletTakenTwice: func(t assert.TestingT, e *testEnv) bool {
		paid := e.pay(split, payBody(1001, "081234567890", 1, "twice", true, false))
		b, _ := wallet(e.tb, e.store, 12)
		return assert.Equal(t, http.StatusOK, paid.Status) && assert.Equal(t, int64(-1500), b, "1500 reported taken, 3000 taken")
	},
}

// split is the split-payment customer of the embedded data set (id 12).
var split = creds{referencetest.KeyNusantara, referencetest.TokSplit}

func TestEveryFaultHasACheck(t *testing.T) {
	t.Parallel()
	for _, f := range reference.AllFaults() {
		assert.Contains(t, faultChecks, f)
	}
	assert.Len(t, faultChecks, len(reference.AllFaults()))
}

// TestEveryFaultIsWired checks that each fault is served by the layer its
// declaration names, and only there: a rule fault by the domain's policy
// (not here), a wire fault by a rewrite of the answer, a request fault by
// a refusal.
func TestEveryFaultIsWired(t *testing.T) {
	t.Parallel()
	for _, s := range reference.Faults() {
		wf, here := wireFaults[s.Fault]
		switch s.Layer {
		case reference.LayerRule:
			assert.False(t, here, "%s is a rule fault: the domain serves it", s.Fault)
		case reference.LayerWire:
			assert.True(t, wf.rewrite != nil && wf.refuse == nil, "%s is a wire fault: a rewrite serves it", s.Fault)
		case reference.LayerRequest:
			assert.True(t, wf.refuse != nil && wf.rewrite == nil, "%s is a request fault: a refusal serves it", s.Fault)
		default:
			t.Errorf("%s has no layer", s.Fault)
		}
	}
	for f := range wireFaults {
		assert.NotEqual(t, reference.LayerRule, reference.Faults().Layer(f), "%s is served here but not declared a wire or request fault", f)
	}
	assert.Len(t, wireFaults, 10)
}

// TestNoWireFaultNoMiddleware checks that a server without wire faults
// serves its responses unbuffered.
func TestNoWireFaultNoMiddleware(t *testing.T) {
	t.Parallel()
	next := &gate{}
	assert.Same(t, next, withWireFaults(next, routes(), []reference.Fault{reference.FaultNoTrxIDLimit}))
	_, isGate := withWireFaults(next, routes(), []reference.Fault{reference.FaultMessageTypo}).(*gate)
	assert.False(t, isGate, "a wire fault installs the middleware")
}

// TestFaults switches each fault on alone and checks its departure.
func TestFaults(t *testing.T) {
	t.Parallel()
	for _, f := range reference.AllFaults() {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, reference.WithFaults(f), reference.WithGap(barrier(2)))
			check := faultChecks[f]
			require.NotNil(t, check)
			check(t, e)
		})
	}
}

// TestFaultChecksFailWithoutFault proves the checks can fail: against a
// store without faults every check reports a failure.
func TestFaultChecksFailWithoutFault(t *testing.T) {
	t.Parallel()
	for _, f := range reference.AllFaults() {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, reference.WithGap(barrier(2))) // never runs without the fault
			e.skipValidation = true
			rec := &recordingT{}
			assert.False(t, faultChecks[f](rec, e), "check passed against the contract behaviour")
			assert.True(t, rec.failed)
		})
	}
}

// recordingT records assertion failures instead of failing the test.
type recordingT struct{ failed bool }

func (r *recordingT) Errorf(string, ...any) { r.failed = true }
