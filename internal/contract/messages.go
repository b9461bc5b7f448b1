package contract

// Exact messages of the document that both the suite and the load tester
// compare byte for byte (section 7).
const (
	// MsgOK is the message of a success body "unless stated" (section 4).
	MsgOK = "OK"
	// MsgSynced answers provision_account, 200 and 201 alike (section 4.4).
	MsgSynced = "Akun berhasil disinkronisasi."
	// MsgCreated answers a created payment (section 4.6 rule 3).
	MsgCreated = "Pembayaran berhasil diproses."
	// MsgDuplicate answers a reused partner_trx_id with 409 (section 7, Payment).
	MsgDuplicate = "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik."
)
