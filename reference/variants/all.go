package variants

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// All returns every variant, each built afresh.
func All() []Variant {
	return []Variant{
		settlesAtOnce(), checksOperator(), other401Messages(), sync403(), pricePlanEverywhere(),
		refusesUnknownPrefixes(), walletFirst(), emptyPaketData(), idsAcrossPartners(), feeInTotal(),
		gatewayNotYet(), highMinimumPayment(), perPageCountsRecords(), useBalanceDefaultsTrue(),
		feeOnTop(), listsMethodZero(), methodRuleFirst(), listsZeroRuleFirst(), minimumAboveEveryPrice(),
		walletWhenPaid(), lookupEchoed(), refusedUsesID(),
		Throttles(),
	}
}

// Why a judge cannot observe a variant (Variant.Unseen).
const (
	unseenCredentials = "it sends every request with the profile's valid credentials: authentication is the suite's to judge"
	unseenOperator    = "it sends every payment to a number of the product's operator, as the document lets a server check"
	unseenOnePartner  = "only the profile's partner pays"
	unseenPrefixes    = "it sends numbers of the operators the contract's table knows only"
	unseenOneDefect   = "its requests carry one defect each, and the variant shows only on a request with two"
	// unseenFromBalance: the probe pays from the funded customer's wallet.
	unseenFromBalance = "it pays from the funded customer's balance and coins: it lists no payment method, and pays through a gateway only for a profile without a funded customer"
	unseenNoPlan      = "it never uses the partner whose price plan is not active"
	// unseenRefusedFresh: the probe's one refused payment (method 0 with
	// neither balance nor coins) carries a fresh partner_trx_id.
	unseenRefusedFresh = "the one payment it sends with method 0 and neither balance nor coins carries a fresh partner_trx_id"
)

const (
	pathPayment   = "/client/v2/payment"
	pathStatus    = "/client/v2/payment/status"
	pathMethods   = "/client/v2/payment/methods"
	pathSync      = "/client/v2/product/sync"
	pathList      = "/client/v2/product/list"
	pathProvision = "/client/v2/customer/provision_account"
	pathProfile   = "/client/v2/customer/profile"
)

func settlesAtOnce() Variant {
	return Variant{
		Name: "settles at once",
		Why:  "§3: transitions are not shown; PAID/PROCESSING is only an observed combination",
		Edit: func(r *http.Request, _ *int, body map[string]any) {
			data, _ := body["data"].(map[string]any)
			switch r.URL.Path {
			case pathPayment:
				if tx, ok := data["transaction"].(map[string]any); ok && tx["payment_status"] == "PAID" {
					tx["status"] = "SUCCESS"
				}
			case pathStatus:
				if data != nil && data["payment_status"] == "PAID" {
					data["transaction_status"] = "SUCCESS"
					if data["serial_number"] == "" || data["serial_number"] == nil {
						data["serial_number"] = "SN-8811223344"
					}
				}
			}
		},
		Warns: []string{"paid-processing"},
	}
}

func checksOperator() Variant {
	return Variant{
		Name:   "checks the destination number against the product's operator",
		Why:    "§4.6: msisdn is the destination number of the transaction; the document does not forbid the check",
		Unseen: map[Judge]string{Suite: unseenOperator, LoadTester: unseenOperator, Probe: unseenOperator},
		Wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
			prefixes := map[int64][]string{}
			for _, o := range ds.Operators {
				for _, p := range ds.Products {
					if p.OperatorID == o.ID {
						prefixes[p.ID] = o.Prefixes
					}
				}
			}
			return before(next, func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				if r.URL.Path != pathPayment {
					return false
				}
				n, isInt := integer(body["product_id"])
				msisdn, _ := body["msisdn"].(string)
				ps, known := prefixes[n]
				if !isInt || len(msisdn) < 4 || !known || slices.Contains(ps, msisdn[:4]) {
					return false
				}
				changed(r) // a message the reference never gives
				writeEnvelope(w, http.StatusBadRequest, "Nomor tujuan tidak sesuai dengan operator produk.")
				return true
			})
		},
	}
}

func other401Messages() Variant {
	return Variant{
		Name:   "maps the 401 messages differently within each row",
		Why:    "§7: each 401 row joins its messages with \"or\"",
		Unseen: map[Judge]string{Generated: unseenCredentials, LoadTester: unseenCredentials, Probe: unseenCredentials},
		Edit: func(r *http.Request, status *int, body map[string]any) {
			if *status != http.StatusUnauthorized {
				return
			}
			if strings.HasPrefix(r.URL.Path, "/client/v2/product/") {
				body["message"] = contract.MsgSecretKeyInvalid
			} else {
				body["message"] = "Akses ditolak: kredensial tidak dikenali."
			}
		},
		Warns: []string{"auth-message-per-condition"},
	}
}

func sync403() Variant {
	return Variant{
		Name:   "answers 403 to a missing or invalid token on product sync",
		Why:    "§5: product sync accepts only the main partner account's token; any other token gets 403",
		Unseen: map[Judge]string{Generated: unseenCredentials, LoadTester: unseenCredentials, Probe: unseenCredentials},
		Edit: func(r *http.Request, status *int, body map[string]any) {
			if r.URL.Path == pathSync && *status == http.StatusUnauthorized && body["message"] != contract.MsgSecretKeyInvalid {
				*status = http.StatusForbidden
				body["message"] = contract.MsgSyncForbidden
			}
		},
		Warns: []string{"sync-token-401", "auth-message-per-condition"},
	}
}

func pricePlanEverywhere() Variant {
	return Variant{
		Name:   "answers the price plan message on every endpoint of the unconfigured partner",
		Why:    "§1: when the configuration is not active, endpoints may answer with the message",
		Unseen: map[Judge]string{Generated: unseenNoPlan, LoadTester: unseenNoPlan, Probe: unseenNoPlan},
		Wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
			inactive := map[int64]bool{}
			for _, p := range ds.PricePlans {
				inactive[p.ID] = !p.Active
			}
			var keys []string
			for _, p := range ds.Partners {
				if inactive[p.PricePlanID] {
					keys = append(keys, p.SecretKey)
				}
			}
			msg := strings.Replace(contract.MsgPricePlan, "<operator_team>", ds.OperatorTeam, 1)
			return before(next, func(w http.ResponseWriter, r *http.Request, _ map[string]any) bool {
				if !slices.Contains(keys, r.Header.Get("X-SECRET-KEY")) {
					return false
				}
				switch r.URL.Path {
				case pathList, pathSync, pathPayment: // the reference refuses them too, maybe otherwise
					refuseInstead(w, r, next, http.StatusBadRequest, msg)
				default:
					changed(r)
					writeEnvelope(w, http.StatusBadRequest, msg)
				}
				return true
			})
		},
	}
}

func refusesUnknownPrefixes() Variant {
	return Variant{
		Name:   "refuses phone numbers of no operator",
		Why:    "§2.3 and §4.1: Indonesian format; a server may know which prefixes exist",
		Unseen: map[Judge]string{Generated: unseenPrefixes, LoadTester: unseenPrefixes, Probe: unseenPrefixes},
		Wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
			var real []string
			for _, o := range ds.Operators {
				real = append(real, o.Prefixes...)
			}
			unreal := func(n string) bool { return len(n) >= 4 && strings.HasPrefix(n, "08") && !slices.Contains(real, n[:4]) }
			return before(next, func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				switch r.URL.Path {
				case pathProvision:
					if n, _ := body["phone_number"].(string); unreal(n) {
						changed(r) // a message the reference never gives
						writeEnvelope(w, http.StatusBadRequest, "Nomor telepon tidak valid.")
						return true
					}
				case pathPayment:
					if n, _ := body["msisdn"].(string); unreal(n) {
						changed(r) // a message the reference never gives
						writeEnvelope(w, http.StatusBadRequest, "Nomor tujuan tidak valid.")
						return true
					}
				case pathList:
					// A malformed number the reference refuses alike.
					if n := r.URL.Query().Get("phone_number"); unreal(n) && contract.ValidMsisdn(n) {
						changed(r)
						writeEnvelope(w, http.StatusBadRequest, contract.MsgInvalidDestination)
						return true
					}
				}
				return false
			})
		},
	}
}

func walletFirst() Variant {
	return Variant{
		Name: "checks the wallet before the other fields",
		Why:  "§7: the document gives no order of checks",
		Unseen: map[Judge]string{
			Generated:  unseenOneDefect + " (method 0 from an empty wallet, and another), which a varied request makes only by chance",
			LoadTester: "its payers are funded and its requests carry no defect",
			Probe:      "its payer's wallet covers every payment it sends with the balance and coin method and balance or coins chosen",
		},
		Wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			return before(next, func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				if r.URL.Path != pathPayment || r.Method != http.MethodPost {
					return false
				}
				if id, ok := integer(body["payment_method_id"]); !ok || id != 0 {
					return false
				}
				useBalance, _ := body["use_balance"].(bool)
				useCoin, _ := body["use_coin"].(bool)
				if !useBalance && !useCoin {
					return false
				}
				req := httptest.NewRequestWithContext(r.Context(), http.MethodGet, pathProfile, nil)
				req.Header = r.Header.Clone()
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, req)
				var profile struct {
					Data struct {
						Balance struct{ Available int64 } `json:"balance"`
						Coin    struct {
							Value int64 `json:"available_value"`
						} `json:"coin"`
					} `json:"data"`
				}
				if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &profile) != nil {
					return false
				}
				funds := int64(0)
				if useBalance {
					funds += profile.Data.Balance.Available
				}
				if useCoin {
					funds += profile.Data.Coin.Value
				}
				if funds > 0 {
					return false
				}
				// Method 0 with nothing to spend: the reference refuses it
				// too, after the other fields.
				refuseInstead(w, r, next, http.StatusUnprocessableEntity, "Saldo dan koin tidak mencukupi.")
				return true
			})
		},
	}
}

func emptyPaketData() Variant {
	return Variant{
		Name: "an empty paket-data catalog with totalPages 1",
		Why:  "§2.2: the document gives no arithmetic of totalPages",
		Edit: func(r *http.Request, status *int, body map[string]any) {
			if r.URL.Path != pathSync || r.URL.Query().Get("sub_category") != "paket-data" || *status != http.StatusOK {
				return
			}
			if data, ok := body["data"].(map[string]any); ok {
				data["products"] = []any{}
			}
			if p, ok := body["pagination"].(map[string]any); ok {
				p["total"], p["totalPages"] = 0, 1
			}
		},
	}
}

func idsAcrossPartners() Variant {
	return Variant{
		Name:   "partner transaction ids unique across partners",
		Why:    "§4.6: partner_trx_id is unique; the document does not say within what",
		Unseen: map[Judge]string{Generated: unseenOnePartner, LoadTester: unseenOnePartner, Probe: unseenOnePartner},
		Wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			var mu sync.Mutex
			owner := map[string]string{}
			inner := rewriteJSON(next, func(r *http.Request, reqBody []byte, status *int, _ map[string]any) {
				var req struct {
					ID string `json:"partner_trx_id"`
				}
				if r.URL.Path == pathPayment && *status == http.StatusOK && json.Unmarshal(reqBody, &req) == nil {
					mu.Lock()
					owner[req.ID] = r.Header.Get("X-SECRET-KEY")
					mu.Unlock()
				}
			})
			return before(inner, func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				id, _ := body["partner_trx_id"].(string)
				if r.URL.Path != pathPayment || id == "" {
					return false
				}
				mu.Lock()
				key, used := owner[id]
				mu.Unlock()
				if !used || key == r.Header.Get("X-SECRET-KEY") {
					return false
				}
				changed(r) // the reference keeps ids per partner: a fresh id here
				writeEnvelope(w, http.StatusConflict, "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik.")
				return true
			})
		},
	}
}

// addFees adds each gateway method's service fee to the fields of a
// created payment's amount object, and to the same fields of its status
// record later.
func addFees(ds *reference.Dataset, next http.Handler, fields ...string) http.Handler {
	fees := map[int64]int64{}
	for _, m := range ds.PaymentMethods {
		fees[m.ID] = m.FeeAmount
	}
	var mu sync.Mutex
	byTrx := map[string]int64{} // secret key + partner_trx_id
	add := func(amount map[string]any, fee int64) {
		for _, k := range fields {
			n, _ := integer(amount[k])
			amount[k] = n + fee
		}
	}
	return rewriteJSON(next, func(r *http.Request, _ []byte, status *int, body map[string]any) {
		data, _ := body["data"].(map[string]any)
		if *status != http.StatusOK || data == nil {
			return
		}
		switch r.URL.Path {
		case pathPayment:
			tx, _ := data["transaction"].(map[string]any)
			pm, _ := data["payment_method"].(map[string]any)
			id, _ := integer(pm["id"])
			amount, _ := tx["amount"].(map[string]any)
			fee := fees[id]
			if id == 0 || fee == 0 || amount == nil {
				return
			}
			add(amount, fee)
			trx, _ := tx["partner_trx_id"].(string)
			mu.Lock()
			byTrx[r.Header.Get("X-SECRET-KEY")+"\x00"+trx] = fee
			mu.Unlock()
		case pathStatus:
			trx, _ := data["partner_trx_id"].(string)
			mu.Lock()
			fee := byTrx[r.Header.Get("X-SECRET-KEY")+"\x00"+trx]
			mu.Unlock()
			if amount, ok := data["amount"].(map[string]any); ok && fee > 0 {
				add(amount, fee)
			}
		}
	})
}

// everyMethodCharges gives every gateway method a service fee, so that a
// variant about the fee shows in every gateway payment.
func everyMethodCharges(ds *reference.Dataset) {
	for i := range ds.PaymentMethods {
		ds.PaymentMethods[i].FeeAmount = max(ds.PaymentMethods[i].FeeAmount, 2500)
	}
}

func feeInTotal() Variant {
	return Variant{
		Data:   everyMethodCharges,
		Name:   "the gateway fee is part of the total",
		Unseen: map[Judge]string{Probe: unseenFromBalance},
		Why:    "§2.4 service_fee and §2.7 total: the document does not say whether the fee is in the total",
		Wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
			return addFees(ds, next, "total", "gateway_payment")
		},
	}
}

func feeOnTop() Variant {
	return Variant{
		Name:   "the gateway fee is charged on top of the total",
		Unseen: map[Judge]string{Probe: unseenFromBalance},
		Why: "§2.7: total is \"Total in rupiah.\" and gateway_payment \"Rupiah to be paid through a payment gateway\"; " +
			"the document does not say whether the fee is in the total, in gateway_payment, or both",
		Data: everyMethodCharges,
		Wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
			return addFees(ds, next, "gateway_payment")
		},
	}
}

// gatewayNotYet refuses every payment that leaves a remainder to a gateway
// with 422, and takes nothing: the reference's own refusal of a remainder
// below the method's minimum does it, with minima no price reaches, while
// the methods list shows the data set's minima.
func gatewayNotYet() Variant {
	shown := map[int64]int64{}
	return Variant{
		Name:   "a payment gateway that cannot process payments yet",
		Unseen: map[Judge]string{Probe: unseenFromBalance},
		Why:    "§7 Payment: 422 create, \"Payment cannot be processed yet\"; the document does not say when",
		Data: func(ds *reference.Dataset) {
			for i, m := range ds.PaymentMethods {
				shown[m.ID] = m.MinimumPayment
				ds.PaymentMethods[i].MinimumPayment = math.MaxInt64 / 4
			}
		},
		Wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
			refused := refusedBelow(ds, shown)
			return watchJSON(next, func(r *http.Request, reqBody []byte, status *int, body map[string]any) {
				refused(r, reqBody, *status)
				list, _ := body["data"].([]any)
				if r.URL.Path != pathMethods || *status != http.StatusOK {
					return
				}
				for _, m := range list {
					if m, ok := m.(map[string]any); ok {
						id, _ := integer(m["id"])
						m["minimum_payment"] = shown[id]
					}
				}
			})
		},
		NotJudged: "every gateway payment was refused with 422 \"Nominal pembayaran kurang dari minimum metode pembayaran.\"",
	}
}

// highMinimum is the minimum_payment of every gateway method of the
// highMinimumPayment variant: above every prabayar price it keeps, below
// some paket-data prices.
const highMinimum = 30000

func highMinimumPayment() Variant {
	real := map[int64]int64{}
	return Variant{
		Name:   "every gateway method has a minimum_payment of 30,000",
		Unseen: map[Judge]string{Probe: unseenFromBalance},
		Why: "§2.4 minimum_payment: \"Rupiah.\", its values not shown; §1: the products and prices follow the " +
			"partner's configuration (here no prabayar product reaches the minimum, some paket-data products do)",
		Data: func(ds *reference.Dataset) {
			maps.Copy(real, minima(ds))
			for i := range ds.PaymentMethods {
				ds.PaymentMethods[i].MinimumPayment = highMinimum
			}
			// The dearest price plan marks up by 5%: keep the prabayar
			// products whose final price stays below the minimum.
			ds.Products = slices.DeleteFunc(ds.Products, func(p reference.Product) bool {
				return p.SubCategory == "prabayar" && p.BasePrice*105/100 >= highMinimum
			})
		},
		Wrap: minimaWatched(real),
	}
}

// minimaWatched is the Wrap of a double whose data set gives the gateway
// methods other minima than real, the reference's: it marks the methods
// lists and the refusals that show them.
func minimaWatched(real map[int64]int64) func(ds *reference.Dataset, next http.Handler) http.Handler {
	return func(ds *reference.Dataset, next http.Handler) http.Handler {
		refused := refusedBelow(ds, real)
		return watchJSON(next, func(r *http.Request, reqBody []byte, status *int, _ map[string]any) {
			minimaShown(r, *status)
			refused(r, reqBody, *status)
		})
	}
}

func minimumAboveEveryPrice() Variant {
	real := map[int64]int64{}
	return Variant{
		Name:   "no product reaches any gateway method's minimum_payment",
		Unseen: map[Judge]string{Probe: unseenFromBalance},
		Why:    "§2.4 minimum_payment: \"Rupiah.\", its values not shown: a server may offer gateways for no product of the catalog",
		Data: func(ds *reference.Dataset) {
			maps.Copy(real, minima(ds))
			var dearest int64
			for _, p := range ds.Products {
				dearest = max(dearest, p.BasePrice)
			}
			for i := range ds.PaymentMethods {
				// Twice the dearest base price is above every final price.
				ds.PaymentMethods[i].MinimumPayment = 2 * dearest
			}
		},
		Wrap:      minimaWatched(real),
		NotJudged: "no gateway payment method's minimum_payment is reached",
	}
}

// smallCatalog is how many prabayar products the perPageCountsRecords
// variant keeps: fewer than a page of 100, so that a page asked for with
// pageSize 100 holds fewer records than pageSize and perPage shows it.
const smallCatalog = 9

func perPageCountsRecords() Variant {
	return Variant{
		Name: "pagination.perPage is the number of records on the page",
		Why:  "§2.2: perPage is an integer; §4.2: pageSize, \"Records per page. Maximum 100.\"; that perPage echoes pageSize is not written",
		Data: func(ds *reference.Dataset) {
			// Keep smallCatalog prabayar products: those a profile names
			// (unprocessable ones), then the others of each operator in
			// turn, so that every operator keeps one.
			byOperator := map[int64][]reference.Product{}
			var operators []int64
			keep := map[int64]bool{}
			for _, p := range ds.Products {
				switch {
				case p.SubCategory != "prabayar":
				case p.Unprocessable:
					keep[p.ID] = true
				case p.Status == reference.ProductActive && p.Promotion == nil:
					if byOperator[p.OperatorID] == nil {
						operators = append(operators, p.OperatorID)
					}
					byOperator[p.OperatorID] = append(byOperator[p.OperatorID], p)
				}
			}
			for i := 0; len(keep) < smallCatalog && i < len(ds.Products); i++ {
				if ps := byOperator[operators[i%len(operators)]]; i/len(operators) < len(ps) {
					keep[ps[i/len(operators)].ID] = true
				}
			}
			ds.Products = slices.DeleteFunc(ds.Products, func(p reference.Product) bool {
				return p.SubCategory == "prabayar" && !keep[p.ID]
			})
		},
		Edit: func(r *http.Request, status *int, body map[string]any) {
			if r.URL.Path != pathSync || *status != http.StatusOK {
				return
			}
			data, _ := body["data"].(map[string]any)
			products, isList := data["products"].([]any)
			if p, ok := body["pagination"].(map[string]any); ok && isList {
				p["perPage"] = len(products)
			}
		},
		Warns: []string{"paging-arithmetic"},
	}
}

func useBalanceDefaultsTrue() Variant {
	return Variant{
		Name: "an omitted use_balance defaults to true",
		Why:  "§4.6: use_balance is optional (\"Use the customer's balance.\"); its default is not shown",
		Unseen: map[Judge]string{
			Generated: "a varied request leaves use_balance out only by chance, and shows the default only when the payer has balance or pays with method 0",
			Probe:     "it always sends use_balance and use_coin",
		},
		Wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			// The reference reads the omitted flag as false: the answer
			// differs when balance was taken, or when method 0 had
			// nothing else enabled (the reference refuses it).
			watched := watchJSON(next, func(r *http.Request, reqBody []byte, status *int, body map[string]any) {
				req, _ := httpapi.DecodeObject(reqBody)
				if r.URL.Path != pathPayment || r.Context().Value(defaultedKey{}) == nil {
					return
				}
				method, _ := integer(req["payment_method_id"])
				data, _ := body["data"].(map[string]any)
				tx, _ := data["transaction"].(map[string]any)
				amount, _ := tx["amount"].(map[string]any)
				used, _ := integer(amount["balance_used"])
				paid := *status == http.StatusOK || *status == http.StatusUnprocessableEntity
				if used > 0 || method == 0 && req["use_coin"] != true && paid {
					changed(r)
				}
			})
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == pathPayment && r.Method == http.MethodPost {
					raw, _ := io.ReadAll(r.Body)
					if body, ok := httpapi.DecodeObject(raw); ok {
						if _, given := body["use_balance"]; !given {
							body["use_balance"] = true
							r = r.WithContext(context.WithValue(r.Context(), defaultedKey{}, true))
							if out, err := json.Marshal(body); err == nil {
								raw = out
							}
						}
					}
					r.Body = io.NopCloser(bytes.NewReader(raw))
					r.ContentLength = int64(len(raw))
				}
				watched.ServeHTTP(w, r)
			})
		},
		Warns: []string{"use-flags-left-out-are-off"},
	}
}

// defaultedKey marks a payment request whose use_balance the
// useBalanceDefaultsTrue variant filled in.
type defaultedKey struct{}

func listsMethodZero() Variant {
	return Variant{
		Name:   "the methods list includes the internal id 0",
		Unseen: map[Judge]string{Probe: unseenFromBalance},
		Why:    "§4.5: payment_method_id 0 \"is not required to be in the list\"; nothing forbids listing it",
		Wrap:   func(_ *reference.Dataset, next http.Handler) http.Handler { return listingZero(next) },
	}
}

// listsZeroRuleFirst is both listsMethodZero and methodRuleFirst: a judge
// that takes every listed method for a gateway sends method 0 with balance
// and coins off, a second defect, and meets the method rule first.
func listsZeroRuleFirst() Variant {
	rule, zero := methodRuleFirst(), listsMethodZero()
	return Variant{
		Name:   "the methods list includes id 0, and the method rule is checked before the duplicate partner_trx_id",
		Unseen: map[Judge]string{Probe: unseenFromBalance + "; " + unseenRefusedFresh},
		Why:    zero.Why + "; " + rule.Why,
		Wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
			return zero.Wrap(ds, rule.Wrap(ds, next))
		},
	}
}

// listingZero lists the internal method (§2.4: code BALANCE, gateway
// SALDO, type COIN) first in every methods list next answers.
func listingZero(next http.Handler) http.Handler {
	zero := map[string]any{
		"id": 0, "code": "BALANCE", "name": "Saldo & Koin", "group": "BALANCE", "payment_gateway": "SALDO",
		"payment_type": "COIN", "image": "balance.png", "minimum_payment": 0,
		"service_fee": map[string]any{"type": "Rp", "amount": 0},
	}
	return rewriteJSON(next, func(r *http.Request, _ []byte, status *int, body map[string]any) {
		if r.URL.Path != pathMethods || *status != http.StatusOK {
			return
		}
		if list, ok := body["data"].([]any); ok {
			body["data"] = append([]any{zero}, list...)
		}
	})
}

func methodRuleFirst() Variant {
	return Variant{
		Name: "the method rule is checked before the duplicate partner_trx_id",
		Why:  "§4.6 rule 2 and §7: the document gives no order of checks",
		Unseen: map[Judge]string{
			Generated:  unseenOneDefect + " (a used partner_trx_id, and method 0 with neither balance nor coins), which a varied request makes only by chance",
			LoadTester: "it never sends method 0 without balance or coins",
			Probe:      unseenRefusedFresh,
		},
		Wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			return before(next, func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				if r.URL.Path != pathPayment || r.Method != http.MethodPost || !fieldsGiven(body) {
					return false
				}
				if id, ok := integer(body["payment_method_id"]); !ok || id != 0 {
					return false
				}
				if body["use_balance"] == true || body["use_coin"] == true {
					return false
				}
				// The reference refuses it too: 409 for a used id.
				refuseInstead(w, r, next, http.StatusBadRequest, contract.MsgInternalMethodFlag)
				return true
			})
		},
	}
}

// fieldsGiven reports whether a payment request passes the rules of its
// fields (required, lengths): the checks the methodRuleFirst variant keeps
// before its own.
func fieldsGiven(body map[string]any) bool {
	product, okProduct := integer(body["product_id"])
	msisdn, _ := body["msisdn"].(string)
	trx, _ := body["partner_trx_id"].(string)
	shift, _ := body["shift_code"].(string)
	n := utf8.RuneCountInString
	return okProduct && product != 0 && msisdn != "" && trx != "" && n(trx) <= 50 && n(shift) <= 50
}

func walletWhenPaid() Variant {
	return Variant{
		Name: "a mixed payment takes its wallet part only when the gateway part is paid",
		Why: "§2.7: balance_used \"Rupiah taken from balance.\", coin_used \"Coins taken.\": the document does not say whether a payment " +
			"whose gateway part is unpaid takes them when it is created or when the gateway part is paid; the profile shows, and later payments spend, what the wallet holds",
		Options: []reference.Option{reference.WithWalletTakenWhenPaid()},
		Wrap:    func(_ *reference.Dataset, next http.Handler) http.Handler { return heldWatched(next) },
		Warns:   []string{"wallet-debited"},
		Unseen: map[Judge]string{
			LoadTester: "it never makes a payment that takes from the wallet and leaves a remainder to a gateway",
			Probe:      "it never makes a payment that takes from the wallet and leaves a remainder to a gateway",
		},
	}
}

func lookupEchoed() Variant {
	return Variant{
		Name: "a refused payment lookup echoes the id asked for",
		Why:  "§7: \"Shape of the body of non-success responses: not shown\"; an echo of the question shows no record",
		Edit: func(r *http.Request, status *int, body map[string]any) {
			if r.URL.Path != pathStatus || *status != http.StatusNotFound {
				return
			}
			asked := map[string]any{}
			for _, k := range []string{"partner_trx_id", "transaction_number"} {
				if v := r.URL.Query().Get(k); v != "" {
					asked[k] = v
				}
			}
			body["data"] = asked
		},
		Unseen: map[Judge]string{LoadTester: "it looks up only the ids it sent, which the server created"},
	}
}
