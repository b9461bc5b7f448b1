// Tests of openapi.yaml itself: it is a valid OpenAPI 3 document, the
// generated api package embeds exactly this file, and every row of the API
// document's section 7 is captured on the right operation and status.
package conformance_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/api"
)

func loadContract(tb testing.TB) *openapi3.T {
	tb.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile("openapi.yaml")
	require.NoError(tb, err)
	return doc
}

func TestContractIsValidOpenAPI(t *testing.T) {
	doc := loadContract(t)
	require.NoError(t, doc.Validate(context.Background()))
	assert.Equal(t, "3.0.3", doc.OpenAPI)
}

func TestEmbeddedSpecIsThisFile(t *testing.T) {
	embedded, err := api.GetSpec()
	require.NoError(t, err)
	// oapi-codegen capitalizes operation ids in the spec it embeds; undo
	// that one rewrite so that any other difference shows.
	for _, op := range operations(embedded) {
		op.OperationID = strings.ToLower(op.OperationID[:1]) + op.OperationID[1:]
	}
	want, err := json.Marshal(loadContract(t))
	require.NoError(t, err)
	got, err := json.Marshal(embedded)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got), "api/ is stale: run go generate ./...")
}

// documentRow is one row of section 7 (or the section 1 price plan message):
// the operation it belongs to, the status, and the exact message or prefix.
type documentRow struct {
	operation string
	status    string
	message   string
	prefix    bool
}

// section7 is the API document's section 7, row by row, message by message.
var section7 = []documentRow{
	// Products.
	{"listProducts", "200", "OK", false},
	{"syncProducts", "200", "OK", false},
	{"syncProducts", "200", "Subkategori tidak ditemukan.", false},
	{"listProducts", "200", "Subkategori belum tersedia.", false},
	{"syncProducts", "200", "Subkategori belum tersedia.", false},
	{"listProducts", "400", "phone_number dan sub_category wajib diisi.", false},
	{"listProducts", "400", "Nomor tujuan tidak valid. Gunakan format nomor Indonesia yang diawali 08 dan terdiri dari 10 sampai 13 digit angka.", false},
	{"syncProducts", "400", "sub_category wajib diisi.", false},
	{"syncProducts", "400", "pageSize maksimal 100.", false},
	{"listProducts", "401", "Secret Key tidak valid.", false},
	{"listProducts", "401", "Token wajib diisi.", false},
	{"listProducts", "401", "Token tidak valid atau sudah kedaluwarsa.", false},
	{"syncProducts", "401", "Secret Key tidak valid.", false},
	{"syncProducts", "401", "Token wajib diisi.", false},
	{"syncProducts", "401", "Token tidak valid atau sudah kedaluwarsa.", false},
	{"syncProducts", "403", "Product sync hanya dapat diakses oleh akun mitra utama.", false},
	// Customer.
	{"getCustomerProfile", "200", "OK", false},
	{"provisionAccount", "200", "Akun berhasil disinkronisasi.", false},
	{"provisionAccount", "201", "Akun berhasil disinkronisasi.", false},
	{"provisionAccount", "400", "Data tidak lengkap.", false},
	{"provisionAccount", "400", "Email yang digunakan sudah terdaftar pada akun lain. Silakan gunakan email yang berbeda.", false},
	{"provisionAccount", "401", "Akses ditolak", true},
	{"provisionAccount", "401", "Token wajib diisi.", false},
	{"provisionAccount", "401", "Token tidak valid.", false},
	{"getCustomerProfile", "401", "Akses ditolak", true},
	{"getCustomerProfile", "401", "Token wajib diisi.", false},
	{"getCustomerProfile", "401", "Token tidak valid.", false},
	{"getCustomerProfile", "500", "Profil belum dapat dimuat. Silakan coba lagi nanti.", false},
	// Payment.
	{"listPaymentMethods", "200", "OK", false},
	{"createPayment", "200", "Pembayaran berhasil diproses.", false},
	{"getPaymentStatus", "200", "OK", false},
	{"createPayment", "400", "Produk wajib dipilih.", false},
	{"createPayment", "400", "Nomor tujuan wajib diisi.", false},
	{"createPayment", "400", "Metode pembayaran wajib dipilih.", false},
	{"createPayment", "400", "ID transaksi mitra wajib diisi.", false},
	{"createPayment", "400", "ID transaksi mitra maksimal 50 karakter.", false},
	{"createPayment", "400", "Kode shift maksimal 50 karakter.", false},
	{"createPayment", "400", "Metode pembayaran tidak tersedia.", false},
	{"createPayment", "400", "Untuk metode pembayaran internal, pilih saldo atau koin terlebih dahulu.", false},
	{"getPaymentStatus", "400", "partner_trx_id atau transaction_number wajib diisi.", false},
	{"listPaymentMethods", "401", "Akses ditolak", true},
	{"listPaymentMethods", "401", "Token wajib diisi.", false},
	{"listPaymentMethods", "401", "Token tidak valid.", false},
	{"createPayment", "401", "Akses ditolak", true},
	{"createPayment", "401", "Token wajib diisi.", false},
	{"createPayment", "401", "Token tidak valid.", false},
	{"getPaymentStatus", "401", "Akses ditolak", true},
	{"getPaymentStatus", "401", "Token wajib diisi.", false},
	{"getPaymentStatus", "401", "Token tidak valid.", false},
	{"getPaymentStatus", "404", "Transaksi tidak ditemukan.", false},
	{"getPaymentStatus", "404", "Transaksi payment belum terbentuk.", false},
	{"createPayment", "409", "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik.", false},
	// Section 1 and the closing line of section 7: the price plan message may
	// end product list and payment creation; its status is not shown.
	{"listProducts", "default", "Price plan API mitra belum dikonfigurasi, hubungi tim <operator_team> untuk informasi lebih lanjut.", false},
	{"createPayment", "default", "Price plan API mitra belum dikonfigurasi, hubungi tim <operator_team> untuk informasi lebih lanjut.", false},
}

// section7StatusesWithoutMessage are the rows whose message "follows" another
// message, so the contract records the status but no string.
var section7StatusesWithoutMessage = []documentRow{
	{"listProducts", "500", "", false},
	{"syncProducts", "500", "", false},
	{"createPayment", "422", "", false},
}

func operations(doc *openapi3.T) map[string]*openapi3.Operation {
	ops := map[string]*openapi3.Operation{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ops[op.OperationID] = op
		}
	}
	return ops
}

func stringList(tb testing.TB, ext map[string]any, key string) []string {
	tb.Helper()
	raw, ok := ext[key]
	if !ok {
		return nil
	}
	items, ok := raw.([]any)
	require.True(tb, ok, "%s must be a list", key)
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		require.True(tb, ok, "%s must hold strings", key)
		out = append(out, s)
	}
	return out
}

func TestContractRecordsEverySection7Row(t *testing.T) {
	ops := operations(loadContract(t))
	require.Len(t, ops, 7)
	for _, row := range append(section7, section7StatusesWithoutMessage...) {
		t.Run(row.operation+"/"+row.status+"/"+row.message, func(t *testing.T) {
			op := ops[row.operation]
			require.NotNil(t, op, "operation %s", row.operation)
			ref := op.Responses.Value(row.status)
			require.NotNil(t, ref, "%s has no %s response", row.operation, row.status)
			resp := ref.Value
			require.NotNil(t, resp.Content.Get("application/json"), "every response is JSON")
			if row.message == "" {
				return
			}
			key := "x-messages"
			if row.prefix {
				key = "x-message-prefixes"
			}
			assert.Contains(t, stringList(t, resp.Extensions, key), row.message)
		})
	}
}

func TestContractMessagesAllComeFromTheDocument(t *testing.T) {
	known := map[string]bool{}
	for _, row := range section7 {
		known[row.message] = true
	}
	for id, op := range operations(loadContract(t)) {
		for status, ref := range op.Responses.Map() {
			for _, key := range []string{"x-messages", "x-message-prefixes"} {
				for _, msg := range stringList(t, ref.Value.Extensions, key) {
					assert.True(t, known[msg], "%s %s lists %q, which the document does not give", id, status, msg)
				}
			}
		}
	}
}

func TestContractSecurity(t *testing.T) {
	doc := loadContract(t)
	for id, op := range operations(doc) {
		reqs := doc.Security
		if op.Security != nil {
			reqs = *op.Security
		}
		require.Len(t, reqs, 1, id)
		var schemes []string
		for name := range reqs[0] {
			schemes = append(schemes, name)
		}
		slices.Sort(schemes)
		want := []string{"bearerAuth", "secretKey"}
		if id == "provisionAccount" {
			want = []string{"secretKey"}
		}
		assert.Equal(t, want, schemes, id)
	}
	key := doc.Components.SecuritySchemes["secretKey"].Value
	assert.Equal(t, "X-SECRET-KEY", key.Name)
	assert.Equal(t, "header", key.In)
	assert.Equal(t, "bearer", doc.Components.SecuritySchemes["bearerAuth"].Value.Scheme)
}

func TestContractLimits(t *testing.T) {
	doc := loadContract(t)
	schemas := doc.Components.Schemas
	pay := schemas["CreatePaymentRequest"].Value
	assert.Equal(t, uint64(50), *pay.Properties["partner_trx_id"].Value.MaxLength)
	assert.Equal(t, uint64(50), *pay.Properties["shift_code"].Value.MaxLength)
	assert.ElementsMatch(t, []string{"product_id", "msisdn", "payment_method_id", "partner_trx_id"}, pay.Required)

	sync := operations(doc)["syncProducts"]
	pageSize := sync.Parameters.GetByInAndName("query", "pageSize").Schema.Value
	assert.Equal(t, 100.0, *pageSize.Max)
	page := sync.Parameters.GetByInAndName("query", "page").Schema.Value
	assert.EqualValues(t, 1, page.Default)

	// §4.1 and §8: the phone format applies to airtime and data only, so it
	// is an extension of the parameter, not a pattern of its schema.
	phone := operations(doc)["listProducts"].Parameters.GetByInAndName("query", "phone_number")
	assert.Empty(t, phone.Schema.Value.Pattern, "paket-sms numbers have no documented format")
	pattern, _ := phone.Extensions["x-airtime-data-pattern"].(string)
	require.NotEmpty(t, pattern)
	for _, ok := range []string{"0812345678", "0812345678901"} {
		assert.Regexp(t, pattern, ok)
	}
	for _, bad := range []string{"081234567", "08123456789012", "6281234567890", "0912345678"} {
		assert.NotRegexp(t, pattern, bad)
	}
}

// TestContractMoneyIsInt64: rupiah and coin amounts are whole numbers that
// outgrow 32 bits (a balance of 10^12 rupiah is ordinary in the reference
// data set), so every one of them is declared int64.
func TestContractMoneyIsInt64(t *testing.T) {
	schemas := loadContract(t).Components.Schemas
	prop := func(schema string, path ...string) *openapi3.Schema {
		s := schemas[schema].Value
		for _, p := range path {
			ref := s.Properties[p]
			require.NotNil(t, ref, "%s has no %v", schema, path)
			s = ref.Value
		}
		return s
	}
	money := map[string][][]string{
		"Amount":        {{"total"}, {"balance_used"}, {"coin_used"}, {"coin_value_used"}, {"gateway_payment"}},
		"Product":       {{"pricing", "base_price"}, {"pricing", "final_price"}},
		"Profile":       {{"balance", "available"}, {"coin", "available"}, {"coin", "available_value"}},
		"PaymentMethod": {{"minimum_payment"}, {"service_fee", "amount"}},
		"PaymentResult": {{"payment", "amount"}},
	}
	for schema, paths := range money {
		for _, path := range paths {
			s := prop(schema, path...)
			assert.Equal(t, "integer", s.Type.Slice()[0], "%s.%v", schema, path)
			assert.Equal(t, "int64", s.Format, "%s.%v", schema, path)
		}
	}
}
