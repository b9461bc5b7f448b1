package contract

import "fmt"

// The exact messages of the document (section 7, and sections 1 and 4.6
// where they fix one), compared byte for byte by every judge. This file is
// the one place the judges and the test doubles of reference/variants take
// them from; the reference writes its own (reference/errors.go, auth.go),
// being one implementation of the document and not its judge. A test
// checks each against the x-messages of openapi.yaml, and another that no
// judge's source file writes one again.
const (
	// MsgOK is the message of a success body "unless stated" (section 4).
	MsgOK = "OK"

	// Products (section 7).
	msgSubCategoryNotFound = "Subkategori tidak ditemukan."
	MsgSubCategoryInactive = "Subkategori belum tersedia."
	msgQueryEmpty          = "phone_number dan sub_category wajib diisi."
	MsgInvalidDestination  = "Nomor tujuan tidak valid. Gunakan format nomor Indonesia yang diawali 08 dan terdiri dari 10 sampai 13 digit angka."
	msgSubCategoryRequired = "sub_category wajib diisi."
	msgPageSizeMax         = "pageSize maksimal 100."
	MsgSecretKeyInvalid    = "Secret Key tidak valid."
	MsgTokenRequired       = "Token wajib diisi."
	MsgTokenInvalidExpired = "Token tidak valid atau sudah kedaluwarsa."
	MsgSyncForbidden       = "Product sync hanya dapat diakses oleh akun mitra utama."

	// Customer (section 7).
	MsgSynced          = "Akun berhasil disinkronisasi."
	msgIncomplete      = "Data tidak lengkap."
	msgEmailTaken      = "Email yang digunakan sudah terdaftar pada akun lain. Silakan gunakan email yang berbeda."
	MsgProfileUnloaded = "Profil belum dapat dimuat. Silakan coba lagi nanti."
	MsgTokenInvalid    = "Token tidak valid."
	AccessDeniedPrefix = "Akses ditolak"

	// Payment (section 7).
	MsgCreated            = "Pembayaran berhasil diproses."
	msgProductRequired    = "Produk wajib dipilih."
	msgMsisdnRequired     = "Nomor tujuan wajib diisi."
	msgMethodRequired     = "Metode pembayaran wajib dipilih."
	msgTrxIDRequired      = "ID transaksi mitra wajib diisi."
	msgTrxIDTooLong       = "ID transaksi mitra maksimal 50 karakter."
	msgShiftCodeTooLong   = "Kode shift maksimal 50 karakter."
	msgMethodUnavailable  = "Metode pembayaran tidak tersedia."
	MsgInternalMethodFlag = "Untuk metode pembayaran internal, pilih saldo atau koin terlebih dahulu."
	msgLookupEmpty        = "partner_trx_id atau transaction_number wajib diisi."
	MsgNotFound           = "Transaksi tidak ditemukan."
	msgPaymentNotFormed   = "Transaksi payment belum terbentuk."
	MsgDuplicate          = "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik."

	// MsgPricePlan is the message of section 1 for a partner whose price
	// plan is not active, the operator team's name still a placeholder.
	MsgPricePlan = "Price plan API mitra belum dikonfigurasi, hubungi tim <operator_team> untuk informasi lebih lanjut."
	// PricePlanPrefix is how the price plan message begins, whatever the team.
	PricePlanPrefix = "Price plan API mitra"
)

// The 401 messages of the two endpoint groups (section 7): the products
// group, and the customer and payment groups (which also allow a message
// beginning AccessDeniedPrefix).
var (
	ProductAuthMessages = []string{MsgSecretKeyInvalid, MsgTokenRequired, MsgTokenInvalidExpired}
	AccessAuthMessages  = []string{MsgTokenRequired, MsgTokenInvalid}
)

// messageRows names the section 7 row of every exact message, for reports.
var messageRows = map[string]string{
	MsgOK:                  "§7: 200 Loaded, message OK",
	msgSubCategoryNotFound: "§7 Products: 200 sync, Sub category not found",
	MsgSubCategoryInactive: "§7 Products: 200 all, Sub category exists but inactive",
	msgQueryEmpty:          "§7 Products: 400 list, \"Query empty\" (reading: phone_number or sub_category, or both, missing or empty)",
	MsgInvalidDestination:  "§7 Products: 400 list, Invalid destination number (§4.1: starting with 08, 10 to 13 digits)",
	msgSubCategoryRequired: "§7 Products: 400 sync, sub_category empty",
	msgPageSizeMax:         "§7 Products: 400 sync, pageSize over 100",
	MsgSecretKeyInvalid:    "§7 Products: 401 all, \"Wrong secret key or token\" (reading: this message answers a wrong or missing secret key)",
	MsgTokenRequired:       "§7: 401 all, \"Wrong secret key or token\" (reading: this message answers a missing token)",
	MsgTokenInvalidExpired: "§7 Products: 401 all, \"Wrong secret key or token\" (reading: this message answers an invalid token)",
	MsgTokenInvalid:        "§7 Customer/Payment: 401 all, \"Wrong secret key or token\" (reading: this message answers an invalid token)",
	AccessDeniedPrefix:     "§7 Customer/Payment: 401 all, \"Wrong secret key or token\" (a message beginning " + AccessDeniedPrefix + ")",
	MsgSyncForbidden:       "§7 Products: 403 sync, Token is not the main partner account",
	MsgSynced:              "§7 Customer: 200/201 provision, account synchronized (200) or created (201)",
	msgIncomplete:          "§7 Customer: 400 provision, \"Required field empty\" (reading: a required field missing or empty)",
	msgEmailTaken:          "§7 Customer: 400 provision, Email used by another account",
	MsgProfileUnloaded:     "§7 Customer: 500 profile, Balance/coins cannot be loaded",
	MsgCreated:             "§4.6 rule 3 / §7 Payment: 200 create, Payment created",
	msgProductRequired:     "§7 Payment: 400 create, \"Required field empty\" (product_id; reading: missing or empty)",
	msgMsisdnRequired:      "§7 Payment: 400 create, \"Required field empty\" (msisdn; reading: missing or empty)",
	msgMethodRequired:      "§7 Payment: 400 create, \"Required field empty\" (payment_method_id; reading: missing or empty)",
	msgTrxIDRequired:       "§7 Payment: 400 create, \"Required field empty\" (partner_trx_id; reading: missing or empty)",
	msgTrxIDTooLong:        "§7 Payment: 400 create, partner_trx_id over 50 characters",
	msgShiftCodeTooLong:    "§7 Payment: 400 create, shift_code over 50 characters",
	msgMethodUnavailable:   "§7 Payment: 400 create, Method not available",
	MsgInternalMethodFlag:  "§4.6 rule 2 / §7 Payment: 400 create, balance/coin method chosen without enabling balance or coins",
	msgLookupEmpty:         "§7 Payment: 400 status, Lookup parameters empty",
	MsgNotFound:            SecNotFound,
	msgPaymentNotFormed:    "§7 Payment: 404 status, Payment not yet formed",
	MsgDuplicate:           "§7 Payment: 409 create, partner_trx_id already used",
}

// SecNotFound is the row of section 7 an unknown transaction answers.
const SecNotFound = "§7 Payment: 404 status, \"Transaction not found\" — " + MsgNotFound

// MessageRow names the section 7 row of an exact message, for reports.
func MessageRow(msg string) string {
	if row, ok := messageRows[msg]; ok {
		return row
	}
	return "§7 (message " + msg + ")"
}

// CheckAnswer checks that an answer has the status code and the exact
// message of a row of section 7 (MessageRow names it); the error says what
// came instead.
func CheckAnswer(status int, message string, wantStatus int, wantMessage string) error {
	if status != wantStatus || message != wantMessage {
		return &AnswerMismatch{Status: status, Message: message, WantStatus: wantStatus, WantMessage: wantMessage}
	}
	return nil
}

// CheckAnswerEither checks that an answer has one of two status codes,
// each with its exact message: where a request meets two rows of section
// 7 and the document gives no order of checks, either row is the answer.
func CheckAnswerEither(status int, message string, status1 int, message1 string, status2 int, message2 string) error {
	if CheckAnswer(status, message, status1, message1) == nil || CheckAnswer(status, message, status2, message2) == nil {
		return nil
	}
	return fmt.Errorf("got status %d and the message %q, not %d %q nor %d %q (§7: the request meets both rows, and the document gives no order of checks)",
		status, message, status1, message1, status2, message2)
}
