package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/referencetest"
)

const (
	msgPhoneInvalid = "Nomor tujuan tidak valid. Gunakan format nomor Indonesia yang diawali 08 dan terdiri dari 10 sampai 13 digit angka."
	msgPricePlan    = "Price plan API mitra belum dikonfigurasi, hubungi tim Kemitraan untuk informasi lebih lanjut."
)

// TestHTTPRules drives every rule through the whole HTTP stack; each
// response is validated against openapi.yaml by the test client.
// httpRule is one request and the status, message and status field the
// contract gives it.
type httpRule struct {
	name    string
	method  string
	path    string
	creds   creds
	body    string
	status  int
	message string
	ok      bool // the body's status field
}

// checkHTTPRules sends the rules in order (later rows may rely on earlier
// ones) through one server with a paid transaction "http-paid".
func checkHTTPRules(t *testing.T, cases []httpRule) {
	t.Helper()
	e := newEnv(t)
	require.Equal(t, http.StatusOK, e.pay(funded, payBody(1002, "081234567890", 0, "http-paid", true, false)).Status)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.path, tc.creds, tc.body)
			assert.Equal(t, tc.status, r.Status, "body %s", r.Raw)
			assert.Equal(t, tc.message, r.message())
			assert.Equal(t, tc.ok, r.Body["status"])
			assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		})
	}
}

func TestHTTPRules(t *testing.T) {
	t.Parallel()
	checkHTTPRules(t, []httpRule{
		// Routing and limits.
		{"unknown path", "GET", "/client/v2/nope", funded, "", 404, "Endpoint tidak ditemukan.", false},
		{"unversioned path", "GET", "/client/v1/product/list", funded, "", 404, "Endpoint tidak ditemukan.", false},
		{"wrong method", "DELETE", "/client/v2/payment", funded, "", 405, "Metode HTTP tidak didukung.", false},
		{"wrong method on get route", "POST", "/client/v2/customer/profile", funded, "{}", 405, "Metode HTTP tidak didukung.", false},

		// Authentication, products group.
		{"list no key", "GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", creds{"", referencetest.TokFunded}, "", 401, "Secret Key tidak valid.", false},
		{"list wrong key", "GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", creds{"sk-wrong", referencetest.TokFunded}, "", 401, "Secret Key tidak valid.", false},
		{"list wrong key and no token", "GET", "/client/v2/product/list", creds{"sk-wrong", ""}, "", 401, "Secret Key tidak valid.", false},
		{"list no token", "GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", creds{referencetest.KeyNusantara, ""}, "", 401, "Token wajib diisi.", false},
		{"list bad token", "GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", creds{referencetest.KeyNusantara, "tok-nope"}, "", 401, "Token tidak valid atau sudah kedaluwarsa.", false},
		{"list token of other partner", "GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", creds{referencetest.KeyWarung, referencetest.TokFunded}, "", 401, "Token tidak valid atau sudah kedaluwarsa.", false},
		{"auth before params", "GET", "/client/v2/product/list", creds{referencetest.KeyNusantara, ""}, "", 401, "Token wajib diisi.", false},
		// Authentication, customer and payment groups.
		{"profile wrong key", "GET", "/client/v2/customer/profile", creds{"sk-wrong", referencetest.TokFunded}, "", 401, "Akses ditolak. Secret Key tidak valid.", false},
		{"profile no token", "GET", "/client/v2/customer/profile", creds{referencetest.KeyNusantara, ""}, "", 401, "Token wajib diisi.", false},
		{"profile bad token", "GET", "/client/v2/customer/profile", creds{referencetest.KeyNusantara, "tok-nope"}, "", 401, "Token tidak valid.", false},
		{"profile token of other partner", "GET", "/client/v2/customer/profile", creds{referencetest.KeyNusantara, referencetest.TokWarungC}, "", 401, "Token tidak valid.", false},
		{"provision wrong key", "POST", "/client/v2/customer/provision_account", creds{"sk-wrong", ""}, `{"name":"a","phone_number":"081277770000","email":"x@y.id"}`, 401, "Akses ditolak. Secret Key tidak valid.", false},
		{"methods no key", "GET", "/client/v2/payment/methods", creds{"", referencetest.TokFunded}, "", 401, "Akses ditolak. Secret Key tidak valid.", false},
		{"pay bad token", "POST", "/client/v2/payment", creds{referencetest.KeyNusantara, "tok-nope"}, "{", 401, "Token tidak valid.", false},
		{"status no token", "GET", "/client/v2/payment/status?partner_trx_id=x", creds{referencetest.KeyNusantara, ""}, "", 401, "Token wajib diisi.", false},

		// Product list.
		{"list ok", "GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", funded, "", 200, "OK", true},
		{"list query empty", "GET", "/client/v2/product/list", funded, "", 400, "phone_number dan sub_category wajib diisi.", false},
		{"list phone missing", "GET", "/client/v2/product/list?sub_category=prabayar", funded, "", 400, "phone_number dan sub_category wajib diisi.", false},
		{"list sub blank", "GET", "/client/v2/product/list?phone_number=081234567890&sub_category=", funded, "", 400, "phone_number dan sub_category wajib diisi.", false},
		{"list phone short", "GET", "/client/v2/product/list?phone_number=081234567&sub_category=prabayar", funded, "", 400, msgPhoneInvalid, false},
		{"list phone long", "GET", "/client/v2/product/list?phone_number=08123456789012&sub_category=prabayar", funded, "", 400, msgPhoneInvalid, false},
		{"list phone not 08", "GET", "/client/v2/product/list?phone_number=6281234567890&sub_category=prabayar", funded, "", 400, msgPhoneInvalid, false},
		{"list phone letters", "GET", "/client/v2/product/list?phone_number=0812345678ab&sub_category=prabayar", funded, "", 400, msgPhoneInvalid, false},
		{"list sms phone checked", "GET", "/client/v2/product/list?phone_number=0812&sub_category=paket-sms", funded, "", 400, msgPhoneInvalid, false},
		{"list unknown sub", "GET", "/client/v2/product/list?phone_number=081234567890&sub_category=voucher-game", funded, "", 200, "Subkategori tidak ditemukan.", false},
		{"list inactive sub", "GET", "/client/v2/product/list?phone_number=081234567890&sub_category=paket-sms", funded, "", 200, "Subkategori belum tersedia.", false},
		{"list price plan inactive", "GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", creds{referencetest.KeyNonaktif, referencetest.TokNonaktif}, "", 400, msgPricePlan, false},

		// Product sync.
		{"sync ok", "GET", "/client/v2/product/sync?sub_category=prabayar", main1, "", 200, "OK", true},
		{"sync customer token", "GET", "/client/v2/product/sync?sub_category=prabayar", funded, "", 403, "Product sync hanya dapat diakses oleh akun mitra utama.", false},
		{"sync customer token before params", "GET", "/client/v2/product/sync", funded, "", 403, "Product sync hanya dapat diakses oleh akun mitra utama.", false},
		{"sync sub missing", "GET", "/client/v2/product/sync", main1, "", 400, "sub_category wajib diisi.", false},
		{"sync sub blank", "GET", "/client/v2/product/sync?sub_category=", main1, "", 400, "sub_category wajib diisi.", false},
		{"sync page size 101", "GET", "/client/v2/product/sync?sub_category=prabayar&pageSize=101", main1, "", 400, "pageSize maksimal 100.", false},
		{"sync page size 100", "GET", "/client/v2/product/sync?sub_category=prabayar&pageSize=100", main1, "", 200, "OK", true},
		{"sync page size 0", "GET", "/client/v2/product/sync?sub_category=prabayar&pageSize=0", main1, "", 400, "pageSize minimal 1.", false},
		{"sync page 0", "GET", "/client/v2/product/sync?sub_category=prabayar&page=0", main1, "", 400, "page minimal 1.", false},
		{"sync page not int", "GET", "/client/v2/product/sync?sub_category=prabayar&page=abc", main1, "", 400, "Parameter tidak valid: page.", false},
		{"sync page size not int", "GET", "/client/v2/product/sync?sub_category=prabayar&pageSize=1.5", main1, "", 400, "Parameter tidak valid: pageSize.", false},
		{"sync unknown sub", "GET", "/client/v2/product/sync?sub_category=voucher-game", main1, "", 200, "Subkategori tidak ditemukan.", false},
		{"sync inactive sub", "GET", "/client/v2/product/sync?sub_category=paket-sms", main1, "", 200, "Subkategori belum tersedia.", false},
		{"sync price plan inactive", "GET", "/client/v2/product/sync?sub_category=prabayar", creds{referencetest.KeyNonaktif, referencetest.TokNonaktif}, "", 400, msgPricePlan, false},
		{"sync page past last", "GET", "/client/v2/product/sync?sub_category=prabayar&page=999", main1, "", 200, "OK", true},

		// Customer.
		{"profile ok", "GET", "/client/v2/customer/profile", funded, "", 200, "OK", true},
		{"profile main", "GET", "/client/v2/customer/profile", main1, "", 200, "OK", true},
		{"profile price plan inactive unaffected", "GET", "/client/v2/customer/profile", creds{referencetest.KeyNonaktif, referencetest.TokNonaktif}, "", 200, "OK", true},
		{"profile broken wallet", "GET", "/client/v2/customer/profile", creds{referencetest.KeyNusantara, referencetest.TokBroken}, "", 500, "Profil belum dapat dimuat. Silakan coba lagi nanti.", false},
		{"provision new", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":"Toko Baru","phone_number":"081277770001","email":"baru@toko.id"}`, 201, "Akun berhasil disinkronisasi.", true},
		{"provision existing", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":"Cabang Menteng","phone_number":"081200000011","email":"menteng@tokonusantara.example"}`, 200, "Akun berhasil disinkronisasi.", true},
		{"provision ignores token", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, "tok-nope"}, `{"name":"Toko Baru 2","phone_number":"081277770002","email":"baru2@toko.id"}`, 201, "Akun berhasil disinkronisasi.", true},
		{"provision email taken", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":"x","phone_number":"081277770003","email":"MENTENG@tokonusantara.example"}`, 400, "Email yang digunakan sudah terdaftar pada akun lain. Silakan gunakan email yang berbeda.", false},
		{"provision email free in other partner", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyWarung, ""}, `{"name":"x","phone_number":"081277770004","email":"menteng@tokonusantara.example"}`, 201, "Akun berhasil disinkronisasi.", true},
		{"provision name missing", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"phone_number":"081277770005","email":"c@toko.id"}`, 400, "Data tidak lengkap.", false},
		{"provision email invalid", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":"x","phone_number":"081277770005","email":"not-an-email"}`, 400, "Data tidak lengkap.", false},
		{"provision phone invalid", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":"x","phone_number":"12345","email":"c@toko.id"}`, 400, "Data tidak lengkap.", false},
		{"provision wrong type", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":1,"phone_number":"081277770005","email":"c@toko.id"}`, 400, "Data tidak lengkap.", false},
		{"provision malformed", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, `{"name":`, 400, "Data tidak lengkap.", false},
		{"provision empty body", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNusantara, ""}, "", 400, "Data tidak lengkap.", false},
		{"provision inactive plan unaffected", "POST", "/client/v2/customer/provision_account", creds{referencetest.KeyNonaktif, ""}, `{"name":"x","phone_number":"081277770006","email":"d@toko.id"}`, 201, "Akun berhasil disinkronisasi.", true},
	})
}

func TestHTTPPaymentRules(t *testing.T) {
	t.Parallel()
	checkHTTPRules(t, []httpRule{
		// Payment methods.
		{"methods ok", "GET", "/client/v2/payment/methods", funded, "", 200, "OK", true},
		{"methods price plan inactive unaffected", "GET", "/client/v2/payment/methods", creds{referencetest.KeyNonaktif, referencetest.TokNonaktif}, "", 200, "OK", true},
		{"pay operator of number not checked", "POST", "/client/v2/payment", funded, payBody(2001, "081712345678", 0, "p-xl-number", true, false), 200, "Pembayaran berhasil diproses.", true},

		// Create payment: fields in the documented order.
		{"pay product missing", "POST", "/client/v2/payment", funded, `{}`, 400, "Produk wajib dipilih.", false},
		{"pay product zero", "POST", "/client/v2/payment", funded, `{"product_id":0,"msisdn":"081234567890","payment_method_id":0,"partner_trx_id":"a"}`, 400, "Produk wajib dipilih.", false},
		{"pay product negative", "POST", "/client/v2/payment", funded, `{"product_id":-5,"msisdn":"081234567890","payment_method_id":0,"partner_trx_id":"a"}`, 400, "Produk wajib dipilih.", false},
		{"pay msisdn missing", "POST", "/client/v2/payment", funded, `{"product_id":1002,"payment_method_id":0,"partner_trx_id":"a"}`, 400, "Nomor tujuan wajib diisi.", false},
		{"pay msisdn blank", "POST", "/client/v2/payment", funded, `{"product_id":1002,"msisdn":"   ","payment_method_id":0,"partner_trx_id":"a"}`, 400, "Nomor tujuan wajib diisi.", false},
		{"pay method missing", "POST", "/client/v2/payment", funded, `{"product_id":1002,"msisdn":"081234567890","partner_trx_id":"a"}`, 400, "Metode pembayaran wajib dipilih.", false},
		{"pay method null", "POST", "/client/v2/payment", funded, `{"product_id":1002,"msisdn":"081234567890","payment_method_id":null,"partner_trx_id":"a"}`, 400, "Metode pembayaran wajib dipilih.", false},
		{"pay trx id missing", "POST", "/client/v2/payment", funded, `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0}`, 400, "ID transaksi mitra wajib diisi.", false},
		{"pay trx id blank", "POST", "/client/v2/payment", funded, `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"partner_trx_id":"  "}`, 400, "ID transaksi mitra wajib diisi.", false},
		{"pay trx id 51", "POST", "/client/v2/payment", funded, payBody(1002, "081234567890", 0, strings.Repeat("x", 51), true, false), 400, "ID transaksi mitra maksimal 50 karakter.", false},
		{"pay shift code 51", "POST", "/client/v2/payment", funded, `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"partner_trx_id":"a","shift_code":"` + strings.Repeat("s", 51) + `"}`, 400, "Kode shift maksimal 50 karakter.", false},
		{"pay msisdn format", "POST", "/client/v2/payment", funded, payBody(1002, "12345", 0, "fmt-1", true, false), 400, msgPhoneInvalid, false},
		{"pay malformed", "POST", "/client/v2/payment", funded, `{"product_id":`, 400, "Format permintaan tidak valid.", false},
		{"pay wrong type", "POST", "/client/v2/payment", funded, `{"product_id":"1002"}`, 400, "Format permintaan tidak valid.", false},
		{"pay empty body", "POST", "/client/v2/payment", funded, "", 400, "Format permintaan tidak valid.", false},
		{"pay duplicate", "POST", "/client/v2/payment", funded, payBody(1002, "081234567890", 0, "http-paid", true, false), 409, "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik.", false},
		{"pay duplicate of seeded trx", "POST", "/client/v2/payment", funded, payBody(1002, "081234567890", 0, "seed-unformed-0001", true, false), 409, "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik.", false},
		{"pay duplicate before method rules", "POST", "/client/v2/payment", funded, payBody(1002, "081234567890", 9, "http-paid", false, false), 409, "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik.", false},
		{"pay method inactive", "POST", "/client/v2/payment", funded, payBody(1002, "081234567890", 9, "m-9", true, false), 400, "Metode pembayaran tidak tersedia.", false},
		{"pay method unknown", "POST", "/client/v2/payment", funded, payBody(1002, "081234567890", 77, "m-77", true, false), 400, "Metode pembayaran tidak tersedia.", false},
		{"pay internal without funds", "POST", "/client/v2/payment", funded, payBody(1002, "081234567890", 0, "m-0", false, false), 400, "Untuk metode pembayaran internal, pilih saldo atau koin terlebih dahulu.", false},
		{"pay internal flags absent", "POST", "/client/v2/payment", funded, `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"partner_trx_id":"m-0b"}`, 400, "Untuk metode pembayaran internal, pilih saldo atau koin terlebih dahulu.", false},
		{"pay product unknown", "POST", "/client/v2/payment", funded, payBody(424242, "081234567890", 0, "p-unknown", true, false), 400, "Produk tidak ditemukan.", false},
		{"pay product inactive", "POST", "/client/v2/payment", funded, payBody(1017, "081234567890", 0, "p-inactive", true, false), 422, "Produk sedang tidak tersedia.", false},
		{"pay sub category inactive", "POST", "/client/v2/payment", funded, payBody(3001, "081234567890", 0, "p-sms", true, false), 422, "Produk sedang tidak tersedia.", false},
		{"pay unprocessable", "POST", "/client/v2/payment", funded, payBody(9001, "081234567890", 0, "p-9001", true, false), 422, "Produk sedang gangguan, pembayaran belum dapat diproses.", false},
		{"pay insufficient", "POST", "/client/v2/payment", creds{referencetest.KeyNusantara, referencetest.TokEmpty}, payBody(1002, "081234567890", 0, "p-empty", true, true), 422, "Saldo dan koin tidak mencukupi.", false},
		{"pay below minimum", "POST", "/client/v2/payment", creds{referencetest.KeyNusantara, referencetest.TokEmpty}, payBody(1001, "081234567890", 2, "p-min", true, true), 422, "Nominal pembayaran kurang dari minimum metode pembayaran.", false},
		{"pay price plan inactive", "POST", "/client/v2/payment", creds{referencetest.KeyNonaktif, referencetest.TokNonaktif}, payBody(1002, "081234567890", 0, "p-plan", true, false), 400, msgPricePlan, false},
		{"pay ok", "POST", "/client/v2/payment", funded, payBody(1002, "081234567890", 0, "p-ok", true, false), 200, "Pembayaran berhasil diproses.", true},
		{"pay same id other partner", "POST", "/client/v2/payment", creds{referencetest.KeyWarung, referencetest.TokWarungC}, payBody(1002, "081234567890", 0, "http-paid", true, false), 200, "Pembayaran berhasil diproses.", true},

		// Payment status.
		{"status by trx id", "GET", "/client/v2/payment/status?partner_trx_id=http-paid", funded, "", 200, "OK", true},
		{"status empty", "GET", "/client/v2/payment/status", funded, "", 400, "partner_trx_id atau transaction_number wajib diisi.", false},
		{"status blank", "GET", "/client/v2/payment/status?partner_trx_id=&transaction_number=", funded, "", 400, "partner_trx_id atau transaction_number wajib diisi.", false},
		{"status unknown", "GET", "/client/v2/payment/status?partner_trx_id=never-used", funded, "", 404, "Transaksi tidak ditemukan.", false},
		{"status unknown number", "GET", "/client/v2/payment/status?transaction_number=INV/20990101/P1/99999999", funded, "", 404, "Transaksi tidak ditemukan.", false},
		{"status unformed", "GET", "/client/v2/payment/status?partner_trx_id=seed-unformed-0001", funded, "", 404, "Transaksi payment belum terbentuk.", false},
		{"status unformed by number", "GET", "/client/v2/payment/status?transaction_number=" + url.QueryEscape("INV/20261101/P1/00000001"), funded, "", 404, "Transaksi payment belum terbentuk.", false},
		{"status other partner", "GET", "/client/v2/payment/status?partner_trx_id=seed-unformed-0001", creds{referencetest.KeyWarung, referencetest.TokWarung}, "", 404, "Transaksi tidak ditemukan.", false},
		{"status both mismatch", "GET", "/client/v2/payment/status?partner_trx_id=http-paid&transaction_number=" + url.QueryEscape("INV/20261101/P1/00000001"), funded, "", 404, "Transaksi tidak ditemukan.", false},
		{"status by main account", "GET", "/client/v2/payment/status?partner_trx_id=http-paid", main1, "", 200, "OK", true},
		{"status price plan inactive unaffected", "GET", "/client/v2/payment/status?partner_trx_id=x", creds{referencetest.KeyNonaktif, referencetest.TokNonaktif}, "", 404, "Transaksi tidak ditemukan.", false},
	})
}

func TestHTTPAuthorizationScheme(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, h := range []string{"Basic " + referencetest.TokFunded, referencetest.TokFunded, "Bearer ", "Bearer"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, e.srv.URL+"/client/v2/customer/profile", nil)
		require.NoError(t, err)
		req.Header.Set("X-SECRET-KEY", referencetest.KeyNusantara)
		req.Header.Set("Authorization", h)
		resp, err := e.Do(req)
		require.NoError(t, err)
		r := decodeReply(t, resp)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusUnauthorized, r.Status, h)
		assert.Equal(t, "Token wajib diisi.", r.message(), h)
	}
}

func TestHTTPBodyTooLarge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := `{"partner_trx_id":"` + strings.Repeat("x", 70<<10) + `"}`
	for _, path := range []string{"/client/v2/payment", "/client/v2/customer/provision_account"} {
		// With a Content-Length.
		r := e.do(http.MethodPost, path, funded, big)
		assert.Equal(t, http.StatusRequestEntityTooLarge, r.Status)
		assert.Equal(t, "Ukuran permintaan terlalu besar.", r.message())
		// Chunked, so only the MaxBytesReader can tell.
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.srv.URL+path, struct{ *strings.Reader }{strings.NewReader(big)})
		require.NoError(t, err)
		require.NoError(t, funded.edit(context.Background(), req))
		resp, err := e.Do(req)
		require.NoError(t, err)
		r = decodeReply(t, resp)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusRequestEntityTooLarge, r.Status)
		assert.Equal(t, "Ukuran permintaan terlalu besar.", r.message())
	}
}

func TestHTTPPanicRecovered(t *testing.T) {
	t.Parallel()
	store, _ := newTestStore(t, reference.WithClock(func() time.Time { panic("clock exploded") }))
	var logs strings.Builder
	h := NewServer(slog.New(slog.NewTextHandler(&logs, nil)), store)
	rec := httptest.NewRecorder()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/client/v2/payment", strings.NewReader(payBody(1002, "081234567890", 0, "boom", true, false)))
	req.Header.Set("X-SECRET-KEY", referencetest.KeyNusantara)
	req.Header.Set("Authorization", "Bearer "+referencetest.TokFunded)
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.JSONEq(t, `{"status":false,"message":"Terjadi kesalahan sistem."}`, rec.Body.String())
	assert.Contains(t, logs.String(), "clock exploded")
}

// TestHTTPProductBodies checks the success bodies of the product list and
// sync field by field through the generated client.
func TestHTTPProductBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()

	t.Run("list is the operator's active products at the partner's price", func(t *testing.T) {
		r := e.do("GET", "/client/v2/product/list?phone_number=085512345678&sub_category=prabayar", funded, "")
		require.Equal(t, 200, r.Status)
		products, _ := r.get("data", "products").([]any)
		require.NotEmpty(t, products)
		for _, p := range products {
			m := p.(map[string]any)
			assert.Equal(t, "Indosat", m["operator"].(map[string]any)["name"])
			assert.Equal(t, "active", m["status"])
		}
		var promos int
		for _, p := range products {
			if promo, ok := p.(map[string]any)["promotion"].(map[string]any); ok {
				promos++
				assert.ElementsMatch(t, []string{"id", "name", "discount"}, keys(promo))
			}
		}
		assert.Equal(t, 1, promos, "Indosat 50.000 has a promotion")
		first := products[0].(map[string]any)
		pricing := first["pricing"].(map[string]any)
		base := int64(pricing["base_price"].(float64))
		assert.Equal(t, base+base*500/10000, int64(pricing["final_price"].(float64)))
	})
	t.Run("list of a prefix of no operator is empty", func(t *testing.T) {
		r := e.do("GET", "/client/v2/product/list?phone_number=080012345678&sub_category=prabayar", funded, "")
		require.Equal(t, 200, r.Status)
		assert.Equal(t, []any{}, r.get("data", "products"))
	})
	t.Run("sync paginates by id with pagination", func(t *testing.T) {
		resp, err := e.client.SyncProductsWithResponse(ctx, &api.SyncProductsParams{SubCategory: "prabayar", Page: ptr(2), PageSize: ptr(7)}, main1.edit)
		require.NoError(t, err)
		require.NotNil(t, resp.JSON200)
		assert.Equal(t, api.Pagination{Total: 266, Page: 2, PerPage: 7, TotalPages: 38}, resp.JSON200.Pagination)
		require.Len(t, resp.JSON200.Data.Products, 7)
		assert.Equal(t, int64(1008), resp.JSON200.Data.Products[0].Id)
	})
	t.Run("sync default page size is 20 and shows inactive products", func(t *testing.T) {
		resp, err := e.client.SyncProductsWithResponse(ctx, &api.SyncProductsParams{SubCategory: "prabayar"}, main1.edit)
		require.NoError(t, err)
		require.NotNil(t, resp.JSON200)
		assert.Equal(t, 20, resp.JSON200.Pagination.PerPage)
		assert.Equal(t, 1, resp.JSON200.Pagination.Page)
		var inactive int
		for _, p := range resp.JSON200.Data.Products {
			if p.Status == "inactive" {
				inactive++
			}
		}
		assert.Equal(t, 1, inactive, "product 1017 (750.000) is inactive")
	})
}

// TestHTTPCustomerBodies checks the success bodies of the profile and of
// provisioning field by field through the generated client.
func TestHTTPCustomerBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()

	t.Run("profile", func(t *testing.T) {
		resp, err := e.client.GetCustomerProfileWithResponse(ctx, creds{referencetest.KeyNusantara, referencetest.TokSplit}.edit)
		require.NoError(t, err)
		require.NotNil(t, resp.JSON200)
		d := resp.JSON200.Data
		assert.Equal(t, int64(12), d.Customer.Id)
		assert.Equal(t, int64(1500), d.Balance.Available)
		assert.Equal(t, int64(10_000_000), d.Coin.Available)
		assert.Equal(t, int64(5_000_000), d.Coin.AvailableValue)
		assert.Equal(t, "2 koin = 1 rupiah.", d.Coin.Note)
		assert.Equal(t, int64(1), d.Customer.Level)
		assert.Nil(t, d.Customer.IdentityNumber)
		assert.Equal(t, "2026-04-01 08:05:00", d.Customer.RegisteredAt)
	})
	t.Run("provisioned token works at once", func(t *testing.T) {
		resp, err := e.client.ProvisionAccountWithResponse(ctx, api.ProvisionAccountRequest{Name: "Kasir Sore", PhoneNumber: "081288880001", Email: "sore@toko.id"}, creds{referencetest.KeyNusantara, ""}.edit)
		require.NoError(t, err)
		require.NotNil(t, resp.JSON201)
		tok := resp.JSON201.Data.Token
		prof, err := e.client.GetCustomerProfileWithResponse(ctx, creds{referencetest.KeyNusantara, tok}.edit)
		require.NoError(t, err)
		require.NotNil(t, prof.JSON200)
		assert.Equal(t, resp.JSON201.Data.CustomerId, prof.JSON200.Data.Customer.Id)
		assert.Equal(t, "sore@toko.id", prof.JSON200.Data.Customer.Email)
		assert.Equal(t, int64(0), prof.JSON200.Data.Balance.Available)
		// With another partner's key the token is refused.
		prof, err = e.client.GetCustomerProfileWithResponse(ctx, creds{referencetest.KeyWarung, tok}.edit)
		require.NoError(t, err)
		assert.Equal(t, 401, prof.StatusCode())
	})
}

func TestHTTPPaymentBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()

	t.Run("methods", func(t *testing.T) {
		resp, err := e.client.ListPaymentMethodsWithResponse(ctx, funded.edit)
		require.NoError(t, err)
		require.NotNil(t, resp.JSON200)
		var ids []int64
		for _, m := range resp.JSON200.Data {
			ids = append(ids, m.Id)
			assert.Equal(t, "Rp", m.ServiceFee.Type)
		}
		assert.Equal(t, []int64{1, 2, 3, 4, 5, 6}, ids, "active methods only, by id; 0 not listed")
		assert.EqualValues(t, 1000, resp.JSON200.Data[0].MinimumPayment)
		assert.Equal(t, int64(4000), resp.JSON200.Data[1].ServiceFee.Amount)
	})
	t.Run("payment covered by balance then status", func(t *testing.T) {
		resp, err := e.client.CreatePaymentWithResponse(ctx, api.CreatePaymentRequest{
			ProductId: 1002, Msisdn: "081234567890", PaymentMethodId: ptr(int64(0)), PartnerTrxId: "body-1", UseBalance: ptr(true), UseCoin: ptr(true),
		}, funded.edit)
		require.NoError(t, err)
		require.NotNil(t, resp.JSON200, "%s", resp.Body)
		d := resp.JSON200.Data
		assert.Equal(t, api.Amount{Total: 11550, BalanceUsed: 11550}, d.Transaction.Amount)
		assert.Equal(t, api.PaymentStatus("PAID"), d.Transaction.PaymentStatus)
		assert.Equal(t, api.TransactionStatus("PROCESSING"), d.Transaction.Status)
		assert.Equal(t, "BALANCE", d.PaymentMethod.Code)
		assert.Equal(t, "SALDO", d.PaymentMethod.Gateway)
		assert.Equal(t, "COIN", d.PaymentMethod.Type)
		assert.False(t, d.Payment.IsRequired)
		assert.Nil(t, d.Payment.Token)
		assert.Nil(t, d.Payment.RedirectUrl)
		assert.Regexp(t, `^INV/20261122/P1/[0-9]{8}$`, d.Transaction.TransactionNumber)
		assert.Equal(t, "body-1", d.Transaction.PartnerTrxId)

		st, err := e.client.GetPaymentStatusWithResponse(ctx, &api.GetPaymentStatusParams{TransactionNumber: &d.Transaction.TransactionNumber, PartnerTrxId: ptr("body-1")}, funded.edit)
		require.NoError(t, err)
		require.NotNil(t, st.JSON200)
		rec := st.JSON200.Data
		assert.Equal(t, d.Transaction.Amount, rec.Amount)
		assert.Equal(t, "TSELR10", rec.Product.Code)
		assert.Equal(t, "Telkomsel", rec.Operator.Name)
		assert.Nil(t, rec.SerialNumber)
		assert.Equal(t, "2026-11-22 08:30:00", rec.CreatedAt)

		e.clock.Advance(3 * time.Second)
		st, err = e.client.GetPaymentStatusWithResponse(ctx, &api.GetPaymentStatusParams{PartnerTrxId: ptr("body-1")}, funded.edit)
		require.NoError(t, err)
		require.NotNil(t, st.JSON200)
		assert.Equal(t, api.TransactionStatus("SUCCESS"), st.JSON200.Data.TransactionStatus)
		require.NotNil(t, st.JSON200.Data.SerialNumber)
		assert.Equal(t, "2026-11-22 08:30:03", st.JSON200.Data.UpdatedAt)
	})
	t.Run("payment with a gateway remainder", func(t *testing.T) {
		resp, err := e.client.CreatePaymentWithResponse(ctx, api.CreatePaymentRequest{
			ProductId: 1002, Msisdn: "081234567890", PaymentMethodId: ptr(int64(2)), PartnerTrxId: "body-2", UseBalance: ptr(true), UseCoin: ptr(true),
		}, creds{referencetest.KeyNusantara, referencetest.TokEmpty}.edit)
		require.NoError(t, err)
		require.NotNil(t, resp.JSON200, "%s", resp.Body)
		d := resp.JSON200.Data
		assert.Equal(t, api.Amount{Total: 11550, GatewayPayment: 11550}, d.Transaction.Amount)
		assert.Equal(t, api.PaymentStatus("UNPAID"), d.Transaction.PaymentStatus)
		assert.Equal(t, api.TransactionStatus("WAITING_PAYMENT"), d.Transaction.Status)
		assert.Equal(t, "VA_BCA", d.PaymentMethod.Code)
		assert.True(t, d.Payment.IsRequired)
		assert.Equal(t, int64(11550+4000), d.Payment.Amount)
		require.NotNil(t, d.Payment.Token)
		require.NotNil(t, d.Payment.RedirectUrl)
		assert.Contains(t, *d.Payment.RedirectUrl, *d.Payment.Token)
	})
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
