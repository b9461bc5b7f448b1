package reference

// Kind classifies a domain error. The HTTP layer maps each kind to one
// status code (see statusOf in httpapi/errors.go); the domain never names one.
type Kind int

// The kinds of domain errors.
const (
	// KindInternal is an unexpected fault of the server.
	KindInternal Kind = iota
	// KindInvalid is a request the caller must correct (missing or malformed fields).
	KindInvalid
	// KindSecretKeyInvalid is a missing or unknown X-SECRET-KEY.
	KindSecretKeyInvalid
	// KindTokenMissing is a missing bearer token.
	KindTokenMissing
	// KindTokenInvalid is an unknown token, or a token of another partner.
	KindTokenInvalid
	// KindForbidden is a valid caller without the right to the operation.
	KindForbidden
	// KindNotFound is a lookup that found nothing.
	KindNotFound
	// KindConflict is a partner_trx_id already used.
	KindConflict
	// KindUnprocessable is a payment that cannot be processed.
	KindUnprocessable
	// KindUnavailable is a resource that cannot be loaded right now.
	KindUnavailable
	// KindNotice is an answer that is not a failure of the request but still
	// carries no data (an unknown or inactive sub category).
	KindNotice
)

// Error is a domain error carrying the exact message of the contract.
type Error struct {
	Kind    Kind
	Message string
}

// Error returns the contract message.
func (e *Error) Error() string { return e.Message }

// Is matches the message-less authentication sentinels (ErrSecretKeyInvalid,
// ErrTokenMissing, ErrTokenInvalid) by kind, so that an error worded for an
// endpoint group is still errors.Is its sentinel.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Kind == e.Kind
}

func newError(k Kind, msg string) *Error { return &Error{Kind: k, Message: msg} }

// The domain errors with their contract messages (section 7 of the API
// document, and docs/reference-choices.md where the document is silent).
// The authentication sentinels carry no message: Authenticate returns them
// worded for the endpoint group (see auth.go).
var (
	ErrSecretKeyInvalid = newError(KindSecretKeyInvalid, "")
	ErrTokenMissing     = newError(KindTokenMissing, "")
	ErrTokenInvalid     = newError(KindTokenInvalid, "")

	ErrSyncMainOnly = newError(KindForbidden, "Product sync hanya dapat diakses oleh akun mitra utama.")

	ErrSubCategoryNotFound = newError(KindNotice, "Subkategori tidak ditemukan.")
	ErrSubCategoryInactive = newError(KindNotice, "Subkategori belum tersedia.")
	ErrListQueryEmpty      = newError(KindInvalid, "phone_number dan sub_category wajib diisi.")
	errPhoneInvalid        = newError(KindInvalid, "Nomor tujuan tidak valid. Gunakan format nomor Indonesia yang diawali 08 dan terdiri dari 10 sampai 13 digit angka.")
	errSubCategoryRequired = newError(KindInvalid, "sub_category wajib diisi.")
	errPageSizeTooLarge    = newError(KindInvalid, "pageSize maksimal 100.")
	errPageTooSmall        = newError(KindInvalid, "page minimal 1.")
	errPageSizeTooSmall    = newError(KindInvalid, "pageSize minimal 1.")

	ErrProvisionIncomplete = newError(KindInvalid, "Data tidak lengkap.")
	errEmailTaken          = newError(KindInvalid, "Email yang digunakan sudah terdaftar pada akun lain. Silakan gunakan email yang berbeda.")
	ErrProfileUnavailable  = newError(KindUnavailable, "Profil belum dapat dimuat. Silakan coba lagi nanti.")

	errProductRequired       = newError(KindInvalid, "Produk wajib dipilih.")
	errMsisdnRequired        = newError(KindInvalid, "Nomor tujuan wajib diisi.")
	errMethodRequired        = newError(KindInvalid, "Metode pembayaran wajib dipilih.")
	errTrxIDRequired         = newError(KindInvalid, "ID transaksi mitra wajib diisi.")
	errTrxIDTooLong          = newError(KindInvalid, "ID transaksi mitra maksimal 50 karakter.")
	errShiftCodeTooLong      = newError(KindInvalid, "Kode shift maksimal 50 karakter.")
	errTrxIDInvalid          = newError(KindInvalid, "ID transaksi mitra tidak valid.")
	errShiftCodeInvalid      = newError(KindInvalid, "Kode shift tidak valid.")
	ErrMethodUnavailable     = newError(KindInvalid, "Metode pembayaran tidak tersedia.")
	errInternalMethodNoFunds = newError(KindInvalid, "Untuk metode pembayaran internal, pilih saldo atau koin terlebih dahulu.")
	errProductNotFound       = newError(KindInvalid, "Produk tidak ditemukan.")
	ErrTrxIDUsed             = newError(KindConflict, "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik.")
	ErrProductUnavailable    = newError(KindUnprocessable, "Produk sedang tidak tersedia.")
	ErrProductDisrupted      = newError(KindUnprocessable, "Produk sedang gangguan, pembayaran belum dapat diproses.")
	ErrInsufficientFunds     = newError(KindUnprocessable, "Saldo dan koin tidak mencukupi.")
	ErrBelowMinimumPayment   = newError(KindUnprocessable, "Nominal pembayaran kurang dari minimum metode pembayaran.")
	// errGatewayRefused is FaultGatewayPaymentsRefused's answer to every
	// payment through a gateway method; the reference never gives it.
	errGatewayRefused = newError(KindUnprocessable, "Saldo tidak mencukupi.")

	errStatusQueryEmpty = newError(KindInvalid, "partner_trx_id atau transaction_number wajib diisi.")
	ErrTrxNotFound      = newError(KindNotFound, "Transaksi tidak ditemukan.")
	ErrPaymentNotFormed = newError(KindNotFound, "Transaksi payment belum terbentuk.")
	ErrInternal         = newError(KindInternal, "Terjadi kesalahan sistem.")
)

// pricePlanMessage is the section 1 message with the operator team filled in.
func pricePlanMessage(team string) string {
	return "Price plan API mitra belum dikonfigurasi, hubungi tim " + team + " untuk informasi lebih lanjut."
}
