package steps_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/steps"
)

// A variant is a server that differs from the reference only where the API
// document allows it (issue 7's acceptance): an http.Handler decorator
// around the reference's handler. Every correct server passes the suite, so
// each variant must pass with zero failures; where it departs from one of
// the suite's readings, the run carries that reading's warning.
type variant struct {
	name string
	// why cites what in the document allows the variant.
	why  string
	wrap func(ds *reference.Dataset, next http.Handler) http.Handler
	// warns are readings the variant departs from: each must be reported
	// as a warning, and no other reading may be.
	warns []string
	// skips, when set, is the reason the scenarios this variant leaves
	// nothing to observe are skipped with; no other scenario may be skipped.
	skips string
}

// TestSuitePassesVariantServers runs the whole suite against each variant,
// in parallel; each run must have zero failures.
func TestSuitePassesVariantServers(t *testing.T) {
	t.Parallel()
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			ds, err := reference.DefaultDataset()
			require.NoError(t, err)
			st, err := reference.NewStore(ds)
			require.NoError(t, err)
			srv := httptest.NewServer(v.wrap(ds, httpapi.NewServer(slog.New(slog.NewTextHandler(io.Discard, nil)), st)))
			t.Cleanup(srv.Close)
			res := runOpts(t, steps.Options{BaseURL: srv.URL, RequestTimeout: 10 * time.Second})
			warned := map[string]bool{}
			skipped := 0
			for _, sc := range res.Summary.Scenarios {
				if sc.Status == steps.StatusSkipped && v.skips != "" && strings.Contains(sc.Reason, v.skips) {
					skipped++
				} else if sc.Status != steps.StatusPassed {
					t.Errorf("%s: %s — %s\n%s", sc.Status, sc.Feature, sc.Name, sc.Reason)
				}
				for _, w := range sc.Warnings {
					warned[w.Reading] = true
				}
			}
			require.Zero(t, res.Failed, "a server that differs only where the document allows (%s) must pass", v.why)
			require.Zero(t, res.Undefined)
			if v.skips != "" {
				assert.Positive(t, skipped, "the variant leaves scenarios nothing to observe: they are skipped with %q", v.skips)
			}
			var got []string
			for id := range warned {
				got = append(got, id)
			}
			sort.Strings(got)
			want := slices.Clone(v.warns)
			sort.Strings(want)
			assert.Equal(t, want, got, "the readings reported as warnings")
			t.Logf("%d passed (%d with warnings: %v), %d skipped", res.Passed, res.Summary.Totals.Warned, got, res.Skipped)
		})
	}
}

var variants = []variant{
	{
		name: "settles at once",
		why:  "§3: transitions are not shown; PAID/PROCESSING is only an observed combination",
		wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			return rewriteJSON(next, func(r *http.Request, _ []byte, _ *int, body map[string]any) {
				data, _ := body["data"].(map[string]any)
				switch r.URL.Path {
				case "/client/v2/payment":
					if tx, ok := data["transaction"].(map[string]any); ok && tx["payment_status"] == "PAID" {
						tx["status"] = "SUCCESS"
					}
				case "/client/v2/payment/status":
					if data != nil && data["payment_status"] == "PAID" {
						data["transaction_status"] = "SUCCESS"
						if data["serial_number"] == "" || data["serial_number"] == nil {
							data["serial_number"] = "SN-8811223344"
						}
					}
				}
			})
		},
		warns: []string{"paid-processing"},
	},
	{
		name: "checks the destination number against the product's operator",
		why:  "§4.6: msisdn is the destination number of the transaction; the document does not forbid the check",
		wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
			prefixes := map[int64][]string{}
			for _, o := range ds.Operators {
				for _, p := range ds.Products {
					if p.OperatorID == o.ID {
						prefixes[p.ID] = o.Prefixes
					}
				}
			}
			return before(next, func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				if r.URL.Path != "/client/v2/payment" {
					return false
				}
				id, _ := body["product_id"].(json.Number)
				n, err := id.Int64()
				msisdn, _ := body["msisdn"].(string)
				ps, known := prefixes[n]
				if err != nil || len(msisdn) < 4 || !known || slices.Contains(ps, msisdn[:4]) {
					return false
				}
				writeEnvelope(w, http.StatusBadRequest, "Nomor tujuan tidak sesuai dengan operator produk.")
				return true
			})
		},
	},
	{
		name: "maps the 401 messages differently within each row",
		why:  "§7: each 401 row joins its messages with \"or\"",
		wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			return rewriteJSON(next, func(r *http.Request, _ []byte, status *int, body map[string]any) {
				if *status != http.StatusUnauthorized {
					return
				}
				if strings.HasPrefix(r.URL.Path, "/client/v2/product/") {
					body["message"] = "Secret Key tidak valid."
				} else {
					body["message"] = "Akses ditolak: kredensial tidak dikenali."
				}
			})
		},
		warns: []string{"auth-message-per-condition"},
	},
	{
		name: "answers 403 to a missing or invalid token on product sync",
		why:  "§5: product sync accepts only the main partner account's token; any other token gets 403",
		wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			return rewriteJSON(next, func(r *http.Request, _ []byte, status *int, body map[string]any) {
				if r.URL.Path == "/client/v2/product/sync" && *status == http.StatusUnauthorized && body["message"] != "Secret Key tidak valid." {
					*status = http.StatusForbidden
					body["message"] = "Product sync hanya dapat diakses oleh akun mitra utama."
				}
			})
		},
		warns: []string{"sync-token-401", "auth-message-per-condition"},
	},
	{
		name: "answers the price plan message on every endpoint of the unconfigured partner",
		why:  "§1: when the configuration is not active, endpoints may answer with the message",
		wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
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
			msg := "Price plan API mitra belum dikonfigurasi, hubungi tim " + ds.OperatorTeam + " untuk informasi lebih lanjut."
			return before(next, func(w http.ResponseWriter, r *http.Request, _ map[string]any) bool {
				if !slices.Contains(keys, r.Header.Get("X-SECRET-KEY")) {
					return false
				}
				writeEnvelope(w, http.StatusBadRequest, msg)
				return true
			})
		},
	},
	{
		name: "refuses phone numbers of no operator",
		why:  "§2.3 and §4.1: Indonesian format; a server may know which prefixes exist",
		wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
			var real []string
			for _, o := range ds.Operators {
				real = append(real, o.Prefixes...)
			}
			unreal := func(n string) bool { return len(n) >= 4 && strings.HasPrefix(n, "08") && !slices.Contains(real, n[:4]) }
			return before(next, func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				switch r.URL.Path {
				case "/client/v2/customer/provision_account":
					if n, _ := body["phone_number"].(string); unreal(n) {
						writeEnvelope(w, http.StatusBadRequest, "Nomor telepon tidak valid.")
						return true
					}
				case "/client/v2/payment":
					if n, _ := body["msisdn"].(string); unreal(n) {
						writeEnvelope(w, http.StatusBadRequest, "Nomor tujuan tidak valid.")
						return true
					}
				case "/client/v2/product/list":
					if unreal(r.URL.Query().Get("phone_number")) {
						writeEnvelope(w, http.StatusBadRequest, "Nomor tujuan tidak valid. Gunakan format nomor Indonesia yang diawali 08 dan terdiri dari 10 sampai 13 digit angka.")
						return true
					}
				}
				return false
			})
		},
	},
	{
		name: "checks the wallet before the other fields",
		why:  "§7: the document gives no order of checks",
		wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			return before(next, func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				if r.URL.Path != "/client/v2/payment" || r.Method != http.MethodPost {
					return false
				}
				if id, ok := body["payment_method_id"].(json.Number); !ok || id.String() != "0" {
					return false
				}
				useBalance, _ := body["use_balance"].(bool)
				useCoin, _ := body["use_coin"].(bool)
				if !useBalance && !useCoin {
					return false
				}
				req := httptest.NewRequestWithContext(r.Context(), http.MethodGet, "/client/v2/customer/profile", nil)
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
				writeEnvelope(w, http.StatusUnprocessableEntity, "Saldo dan koin tidak mencukupi.")
				return true
			})
		},
	},
	{
		name: "an empty paket-data catalog with totalPages 1",
		why:  "§2.2: the document gives no arithmetic of totalPages",
		wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			return rewriteJSON(next, func(r *http.Request, _ []byte, status *int, body map[string]any) {
				if r.URL.Path != "/client/v2/product/sync" || r.URL.Query().Get("sub_category") != "paket-data" || *status != http.StatusOK {
					return
				}
				if data, ok := body["data"].(map[string]any); ok {
					data["products"] = []any{}
				}
				if p, ok := body["pagination"].(map[string]any); ok {
					p["total"], p["totalPages"] = 0, 1
				}
			})
		},
	},
	{
		name: "partner transaction ids unique across partners",
		why:  "§4.6: partner_trx_id is unique; the document does not say within what",
		wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			var mu sync.Mutex
			owner := map[string]string{}
			inner := rewriteJSON(next, func(r *http.Request, reqBody []byte, status *int, _ map[string]any) {
				var req struct {
					ID string `json:"partner_trx_id"`
				}
				if r.URL.Path == "/client/v2/payment" && *status == http.StatusOK && json.Unmarshal(reqBody, &req) == nil {
					mu.Lock()
					owner[req.ID] = r.Header.Get("X-SECRET-KEY")
					mu.Unlock()
				}
			})
			return before(inner, func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				id, _ := body["partner_trx_id"].(string)
				if r.URL.Path != "/client/v2/payment" || id == "" {
					return false
				}
				mu.Lock()
				key, used := owner[id]
				mu.Unlock()
				if !used || key == r.Header.Get("X-SECRET-KEY") {
					return false
				}
				writeEnvelope(w, http.StatusConflict, "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik.")
				return true
			})
		},
	},
	{
		name: "the gateway fee is part of the total",
		why:  "§2.4 service_fee and §2.7 total: the document does not say whether the fee is in the total",
		wrap: func(ds *reference.Dataset, next http.Handler) http.Handler {
			fees := map[string]int64{}
			for _, m := range ds.PaymentMethods {
				fees[strconv.FormatInt(m.ID, 10)] = m.FeeAmount
			}
			var mu sync.Mutex
			byTrx := map[string]int64{}
			addFee := func(amount map[string]any, fee int64) {
				for _, k := range []string{"total", "gateway_payment"} {
					n, _ := amount[k].(json.Number).Int64()
					amount[k] = n + fee
				}
			}
			return rewriteJSON(next, func(r *http.Request, _ []byte, status *int, body map[string]any) {
				data, _ := body["data"].(map[string]any)
				if *status != http.StatusOK || data == nil {
					return
				}
				switch r.URL.Path {
				case "/client/v2/payment":
					tx, _ := data["transaction"].(map[string]any)
					pm, _ := data["payment_method"].(map[string]any)
					id, _ := pm["id"].(json.Number)
					fee := fees[id.String()]
					amount, _ := tx["amount"].(map[string]any)
					if id.String() == "0" || fee == 0 || amount == nil {
						return
					}
					addFee(amount, fee)
					mu.Lock()
					byTrx[tx["partner_trx_id"].(string)] = fee
					mu.Unlock()
				case "/client/v2/payment/status":
					trx, _ := data["partner_trx_id"].(string)
					mu.Lock()
					fee := byTrx[trx]
					mu.Unlock()
					if amount, ok := data["amount"].(map[string]any); ok && fee > 0 {
						addFee(amount, fee)
					}
				}
			})
		},
	},
	{
		name: "a payment gateway that cannot process payments yet",
		why:  "§7 Payment: 422 create, \"Payment cannot be processed yet\"; the document does not say when",
		wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			return rewriteJSON(next, func(r *http.Request, reqBody []byte, status *int, body map[string]any) {
				var req struct {
					MethodID int64 `json:"payment_method_id"`
				}
				if r.URL.Path != "/client/v2/payment" || *status != http.StatusOK || json.Unmarshal(reqBody, &req) != nil || req.MethodID == 0 {
					return
				}
				*status = http.StatusUnprocessableEntity
				body["status"], body["message"] = false, "Pembayaran belum dapat diproses melalui gateway."
				delete(body, "data")
			})
		},
		skips: "cannot process a payment through gateway method",
	},
}

// rewriteJSON serves every request with next and lets edit change the
// status and the decoded JSON body of the answer (numbers kept exact).
func rewriteJSON(next http.Handler, edit func(r *http.Request, reqBody []byte, status *int, body map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqBody, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		status := rec.Code
		var body map[string]any
		dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
		dec.UseNumber()
		if dec.Decode(&body) != nil {
			copyAnswer(w, rec.Result().Header, status, rec.Body.Bytes())
			return
		}
		edit(r, reqBody, &status, body)
		out, err := json.Marshal(body)
		if err != nil {
			panic(err)
		}
		copyAnswer(w, rec.Result().Header, status, out)
	})
}

// before decodes a request's JSON body (if any) and lets intercept answer
// the request instead of next.
func before(next http.Handler, intercept func(w http.ResponseWriter, r *http.Request, body map[string]any) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		var body map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_ = dec.Decode(&body)
		if intercept(w, r, body) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

func copyAnswer(w http.ResponseWriter, h http.Header, status int, body []byte) {
	for k, vs := range h {
		if k == "Content-Length" {
			continue
		}
		w.Header()[k] = vs
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeEnvelope answers with the contract's failure shape.
func writeEnvelope(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"status": false, "message": msg})
}
