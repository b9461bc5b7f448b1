package reference

import (
	"crypto/rand"
	"strings"
	"time"
)

// Amount is the amount object of a transaction (section 2.7).
type Amount struct {
	Total          int64
	BalanceUsed    int64
	CoinUsed       int64
	CoinValueUsed  int64
	GatewayPayment int64
}

// Transaction is a copy of a transaction with its state evaluated at the
// time of the read. Product, Operator and Method describe immutable catalog
// entries; CreatedAt and UpdatedAt are in WIB.
type Transaction struct {
	ID              int64
	Number          string
	PartnerTrxID    string
	Product         Product
	Operator        Operator
	Msisdn          string
	Method          PaymentMethod
	Amount          Amount
	PaymentRequired bool
	GatewayToken    string // empty when none
	RedirectURL     string // empty when none
	PaymentAmount   int64
	PaymentStatus   PaymentStatus
	Status          TransactionStatus
	SerialNumber    string // empty when none
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// CreatePaymentInput is the create payment request. Nil pointers are
// absent fields.
type CreatePaymentInput struct {
	ProductID       int64
	Msisdn          string
	PaymentMethodID *int64
	PromotionID     *int64
	UseBalance      bool
	UseCoin         bool
	Parts           map[string]any
	PartnerTrxID    string
	ShiftCode       *string
}

// validPhoneNumber is the document's Indonesian number rule (sections 4.1
// and 8): 08 first, 10 to 13 digits. The product list, the payment's
// destination number, provisioning and the data set all use it.
func validPhoneNumber(s string) bool {
	if len(s) < 10 || len(s) > 13 || s[0] != '0' || s[1] != '8' {
		return false
	}
	for i := 2; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// checkPaymentFields applies the field rules in the documented order:
// product, destination, method, partner_trx_id (blank or invisible counts
// as missing), the two length limits, control characters in the ids, then
// the destination format. The ids are kept byte for byte.
func (s *Store) checkPaymentFields(in CreatePaymentInput) error {
	if n := s.policy.shiftCodeBufferBytes; n > 0 && in.ShiftCode != nil {
		copyToBuffer(*in.ShiftCode, n)
	}
	if s.policy.promotionZeroPanics && in.PromotionID != nil && *in.PromotionID == 0 {
		_ = s.promotion(*in.PromotionID).ID // no promotion 0: a nil dereference, the 500 of FaultPromotionZeroCrashes
	}
	if s.policy.emptyPartsPanics && in.Parts != nil {
		keys := make([]string, 0, len(in.Parts))
		for k := range in.Parts {
			keys = append(keys, k)
		}
		_ = keys[0] // out of range on {}: the 500 of FaultEmptyPartsCrashes
	}
	switch {
	case in.ProductID <= 0:
		return errProductRequired
	case blank(in.Msisdn):
		return errMsisdnRequired
	case in.PaymentMethodID == nil:
		return errMethodRequired
	case blank(in.PartnerTrxID):
		return errTrxIDRequired
	case s.policy.length(in.PartnerTrxID) > s.policy.maxTrxIDLen:
		return errTrxIDTooLong
	case in.ShiftCode != nil && s.policy.length(*in.ShiftCode) > s.policy.maxShiftCodeLen:
		return errShiftCodeTooLong
	case hasControl(in.PartnerTrxID):
		return errTrxIDInvalid
	case in.ShiftCode != nil && hasControl(*in.ShiftCode):
		return errShiftCodeInvalid
	case !validPhoneNumber(in.Msisdn):
		return errPhoneInvalid
	}
	return nil
}

// promotion is the promotion of id, or nil (FaultPromotionZeroCrashes).
func (s *Store) promotion(id int64) *Promotion {
	for _, p := range s.cat.products {
		if p.Promotion != nil && p.Promotion.ID == id {
			return p.Promotion
		}
	}
	return nil
}

// copyToBuffer copies v into a buffer of n bytes; a longer v is out of
// range (FaultMultiByteShiftCodePanics).
func copyToBuffer(v string, n int) []byte {
	buf := make([]byte, 0, n)
	buf = buf[:len(v)]
	copy(buf, v)
	return buf
}

// checkMethod applies the method rules; it returns the chosen method.
func (s *Store) checkMethod(in CreatePaymentInput) (*PaymentMethod, error) {
	id := *in.PaymentMethodID
	if id == 0 {
		if !in.UseBalance && !in.UseCoin {
			return nil, errInternalMethodNoFunds
		}
		m := internalMethod
		return &m, nil
	}
	m := s.cat.methods[id]
	if m == nil || !m.Active {
		return nil, ErrMethodUnavailable
	}
	return m, nil
}

// checkProduct applies the product rules; it returns the product.
func (s *Store) checkProduct(in CreatePaymentInput) (*Product, error) {
	p := s.cat.products[in.ProductID]
	if p == nil {
		return nil, errProductNotFound
	}
	if _, err := s.subCategory(p.SubCategory); err != nil || (p.Status != ProductActive && !s.policy.sellInactive) {
		return nil, ErrProductUnavailable
	}
	if p.Unprocessable {
		return nil, ErrProductDisrupted
	}
	return p, nil
}

// CreatePayment creates a payment and its transaction for the caller's
// account. The duplicate check, the wallet debit and the insertion happen
// under one lock, so a partner_trx_id is used once and a wallet is never
// debited twice nor below zero. A request refused with an error changes
// nothing.
func (s *Store) CreatePayment(c Caller, in CreatePaymentInput) (Transaction, error) {
	if err := s.checkPaymentFields(in); err != nil {
		return Transaction{}, err
	}
	plan, err := s.pricePlan(c.PartnerID)
	if err != nil {
		return Transaction{}, err
	}
	if !s.policy.internalNeedsFunds && *in.PaymentMethodID == 0 && !in.UseBalance && !in.UseCoin {
		in.UseBalance, in.UseCoin = true, true // accepted, and paid as if both were enabled
	}
	q := s.quote(in, plan)
	now := s.now()
	h := s.txs.hash(c.PartnerID, in.PartnerTrxID)

	s.mu.Lock()
	if first, used := s.txs.lookupTrxID(h, c.PartnerID, in.PartnerTrxID); used && s.policy.uniqueTrxID {
		s.replayUsedTrxID(c, first, q)
		return Transaction{}, s.refuse(ErrTrxIDUsed)
	}
	if !s.policy.checkAndInsertAtomically {
		s.gap()
	}
	if q.err != nil {
		if s.policy.debitRefusedProduct && q.err == ErrProductUnavailable { //nolint:errorlint // a sentinel of this package
			s.debitRefused(c, in, plan)
		}
		return Transaction{}, s.refuse(q.err)
	}
	a := s.accounts[c.AccountID]
	if a == nil {
		return Transaction{}, s.refuse(authError(GroupPayments, ErrTokenInvalid))
	}
	split, err := s.debit(a, in, q)
	if err != nil {
		return Transaction{}, s.refuse(err)
	}
	i, r := s.newTransaction(c, in, q.productIdx, now)
	s.fillPayment(r, q, split)
	s.txs.indexTrxID(h, c.PartnerID, in.PartnerTrxID, i)
	s.txs.indexNumber(i)
	view := s.view(i, in.PartnerTrxID, in.Msisdn, now)
	if s.journal != nil {
		s.journal.Append(s.paymentRecord(i, recPayment))
	}
	if err := s.durable(s.release()); err != nil {
		return Transaction{}, err
	}
	return view, nil
}

// paymentQuote is what CreatePayment decides before taking the lock: the
// method and product rules read only the immutable catalog, so they are
// evaluated outside it; their refusal (err) is reported only after the
// duplicate check.
type paymentQuote struct {
	method     *PaymentMethod
	product    *Product
	productIdx uint32
	price      int64
	token      [12]byte // made outside the lock; unused when balance and coins cover all
	err        error
}

func (s *Store) quote(in CreatePaymentInput, plan *PricePlan) paymentQuote {
	var q paymentQuote
	if q.method, q.err = s.checkMethod(in); q.err != nil {
		return q
	}
	if q.product, q.err = s.checkProduct(in); q.err != nil {
		return q
	}
	q.price = finalPrice(q.product.BasePrice, plan.MarkupBPS, q.product.Promotion)
	if s.policy.chargeBasePrice {
		q.price = q.product.BasePrice
	}
	if q.method.ID != 0 {
		q.token = newGatewayToken()
	}
	q.productIdx = s.cat.productIndex[q.product.ID]
	return q
}

// replayUsedTrxID applies what a policy does to state when a partner_trx_id
// is used again (the faults that rewrite the first transaction or debit the
// wallet a second time); the reference's own policy changes nothing. The
// caller holds s.mu.
func (s *Store) replayUsedTrxID(c Caller, first uint32, q paymentQuote) {
	r := s.txs.at(first)
	if s.policy.duplicateRewritesProduct && q.product != nil {
		r.product = q.productIdx
	}
	if a := s.accounts[c.AccountID]; a != nil && s.policy.debitUsedID {
		a.balance -= r.amount.BalanceUsed
		a.coins -= r.amount.CoinUsed
	}
}

// debit splits the price over the account's balance, coins and the gateway,
// and takes the balance and coins; a split the method cannot carry is
// refused and takes nothing. The caller holds s.mu.
func (s *Store) debit(a *account, in CreatePaymentInput, q paymentQuote) (walletSplit, error) {
	splitter := s.policy.split
	a.paymentsSinceProfile++
	if n := s.policy.staleWalletAfter; n > 0 && a.paymentsSinceProfile >= n {
		splitter.coinsFirst = true
	}
	if s.policy.refuseGateway && q.method.ID != 0 {
		return walletSplit{}, errGatewayRefused
	}
	split := splitter.split(q.price, a.balance, a.coins, in.UseBalance, in.UseCoin)
	if split.Gateway > 0 && q.method.ID == 0 {
		return walletSplit{}, ErrInsufficientFunds
	}
	if split.Gateway > 0 && split.Gateway < q.method.MinimumPayment {
		return walletSplit{}, ErrBelowMinimumPayment
	}
	if !s.policy.takesWalletAtCreation(split.Gateway) {
		return split, nil // taken when the gateway part is paid: never, here
	}
	balance, coins := a.balance, a.coins
	if !s.policy.debitAtomically {
		s.gap()
	}
	a.balance, a.coins = balance-split.BalanceUsed, coins-split.CoinUsed
	if split.Gateway > 0 && split.BalanceUsed+split.CoinUsed > 0 {
		s.bendMixed(a, split)
	}
	return split, nil
}

// bendMixed applies what a policy does to the wallet of a mixed payment
// beyond its split (FaultMixedWalletCredited, FaultMixedWalletTakenTwice);
// the reference's own policy does nothing. The caller holds s.mu.
func (s *Store) bendMixed(a *account, split walletSplit) {
	switch {
	case s.policy.mixedCredited:
		a.balance += 2 * split.BalanceUsed
		a.coins += 2 * split.CoinUsed
	case s.policy.mixedTakenTwice:
		a.balance -= split.BalanceUsed
		a.coins -= split.CoinUsed
	}
}

// fillPayment records a new transaction's amount, method and statuses: a
// payment covered by balance and coins is settled by the internal method,
// one with a remainder waits for the gateway. The caller holds s.mu.
func (s *Store) fillPayment(r *txRecord, q paymentQuote, split walletSplit) {
	r.amount = Amount{Total: q.price, BalanceUsed: split.BalanceUsed, CoinUsed: split.CoinUsed,
		CoinValueUsed: split.CoinValueUsed, GatewayPayment: split.Gateway}
	if split.Gateway == 0 {
		r.method = 0 // the internal method
		r.paymentStatus = paymentStatusIndex(s.policy.coveredPayment)
		r.status = transactionStatusIndex(s.policy.coveredTransaction)
		return
	}
	r.method = s.cat.methodIndex[q.method.ID]
	r.paymentStatus = paymentStatusIndex(PaymentUnpaid)
	r.status = transactionStatusIndex(TransactionWaitingPayment)
	if s.policy.reportRemainder {
		r.flags |= flagRequired | flagToken
		r.token = q.token
	} else {
		r.amount.GatewayPayment = 0
	}
}

// refuse releases s.mu and returns err once the state it was decided on is
// durable, or ErrInternal when that state was lost. The caller holds s.mu.
func (s *Store) refuse(err error) error {
	if derr := s.durable(s.release()); derr != nil {
		return derr
	}
	return err
}

// debitRefused debits the price of a payment refused for its product
// (FaultInactiveProductDebitKept). The caller holds s.mu.
func (s *Store) debitRefused(c Caller, in CreatePaymentInput, plan *PricePlan) {
	a, p := s.accounts[c.AccountID], s.cat.products[in.ProductID]
	if a == nil || p == nil {
		return
	}
	split := s.policy.split.split(finalPrice(p.BasePrice, plan.MarkupBPS, p.Promotion), a.balance, a.coins, in.UseBalance, in.UseCoin)
	a.balance -= split.BalanceUsed
	a.coins -= split.CoinUsed
}

// newTransaction stores a transaction with its id and number, the request's
// fields and the product of index product, and returns its index and its
// record for the caller to complete. The caller holds s.mu.
func (s *Store) newTransaction(c Caller, in CreatePaymentInput, product uint32, now time.Time) (uint32, *txRecord) {
	s.txs.lastID++
	seq := s.txs.nextNumber(c.PartnerID)
	i, r := s.txs.add()
	r.id, r.seq, r.partner, r.account, r.product = s.txs.lastID, seq, c.PartnerID, c.AccountID, product
	r.created = now.UnixNano()
	r.flags = flagFormed
	r.trxID = s.txs.text.add(in.PartnerTrxID)
	s.txs.setMsisdn(i, in.Msisdn)
	if in.PromotionID != nil || in.ShiftCode != nil || in.Parts != nil {
		e := s.txs.extra(i, true)
		e.parts = in.Parts
		if in.PromotionID != nil {
			id := *in.PromotionID
			e.promotionID = &id
		}
		if in.ShiftCode != nil {
			sc := strings.Clone(*in.ShiftCode)
			e.shiftCode = &sc
		}
	}
	return i, r
}

// newGatewayToken returns the random bytes of a fresh gateway payment token
// (rendered "pay-" and their hex). crypto/rand.Read never fails (it crashes
// the program instead).
func newGatewayToken() [12]byte {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return b
}

// view copies transaction i with its state advanced to now. trxID and
// msisdn are its partner_trx_id and destination number, which the caller
// knows or renders. The caller holds s.mu.
func (s *Store) view(i uint32, trxID, msisdn string, now time.Time) Transaction {
	r := s.txs.at(i)
	product := s.cat.productAt[r.product]
	created := time.Unix(0, r.created).In(wib)
	st := s.rules.advance(txState{
		Payment: paymentStatuses[r.paymentStatus], Transaction: transactionStatuses[r.status], UpdatedAt: created,
	}, created, now, product.FailsOnFulfilment)
	v := Transaction{
		ID: r.id, Number: s.txs.number(i), PartnerTrxID: trxID,
		Product: *product, Msisdn: msisdn, Method: *s.cat.methodAt[r.method],
		Amount: r.amount, PaymentRequired: r.flags&flagRequired != 0,
		PaymentStatus: st.Payment, Status: st.Transaction,
		CreatedAt: created, UpdatedAt: st.UpdatedAt,
	}
	if v.PaymentRequired {
		v.PaymentAmount = r.amount.GatewayPayment + v.Method.FeeAmount
	}
	if r.flags&flagToken != 0 {
		v.GatewayToken, v.RedirectURL = gatewayToken(r)
	}
	v.Product.Promotion = nil // the record shows no promotion; avoid sharing the pointer
	if o := s.cat.operators[product.OperatorID]; o != nil {
		v.Operator = *o
		v.Operator.Prefixes = nil
	}
	if st.Transaction == TransactionSuccess && product.HasSerial {
		v.SerialNumber = serialNumber(product.ID, r.id)
	}
	return v
}

// StatusQuery is the payment status lookup; nil or blank means absent.
type StatusQuery struct {
	PartnerTrxID      *string
	TransactionNumber *string
}

// PaymentStatus looks up one transaction of the caller's partner by
// partner_trx_id, transaction_number or both (which must then name the same
// transaction).
func (s *Store) PaymentStatus(c Caller, q StatusQuery) (Transaction, error) {
	trxID, hasTrxID := present(q.PartnerTrxID)
	number, hasNumber := present(q.TransactionNumber)
	if !hasTrxID && !hasNumber {
		return Transaction{}, s.policy.errStatusEmpty
	}
	now := s.now()

	var h uint32
	if hasTrxID {
		h = s.txs.hash(c.PartnerID, trxID)
	}
	s.mu.Lock()
	v, err := s.lookup(c, h, trxID, hasTrxID, number, hasNumber, now)
	if derr := s.durable(s.release()); derr != nil {
		return Transaction{}, derr
	}
	return v, err
}

// lookup is PaymentStatus under s.mu.
func (s *Store) lookup(c Caller, h uint32, trxID string, hasTrxID bool, number string, hasNumber bool, now time.Time) (Transaction, error) {
	crossPartner := !s.policy.ownTransactionsOnly
	var (
		i     uint32
		found bool
	)
	if hasTrxID {
		i, found = s.txs.lookupTrxID(h, c.PartnerID, trxID)
		if !found && crossPartner {
			for id := range s.cat.partners {
				if i, found = s.txs.lookupTrxID(s.txs.hash(id, trxID), id, trxID); found {
					break
				}
			}
		}
		if !found {
			return Transaction{}, ErrTrxNotFound
		}
	}
	if hasNumber {
		j, ok := s.txs.lookupNumber(number)
		if !ok || (s.txs.at(j).partner != c.PartnerID && !crossPartner) {
			return Transaction{}, ErrTrxNotFound
		}
		if found && i != j {
			return Transaction{}, ErrTrxNotFound
		}
		i = j
	}
	r := s.txs.at(i)
	if r.flags&flagFormed == 0 {
		return Transaction{}, ErrPaymentNotFormed
	}
	r.lookups++
	if !hasTrxID {
		trxID = s.txs.trxID(i)
	}
	v := s.view(i, trxID, s.txs.msisdn(i), now)
	if n := s.policy.amountDriftAfterLookups; n > 0 && int(r.lookups) > n {
		v.Amount.Total += int64(int(r.lookups) - n)
	}
	return v, nil
}

func present(p *string) (string, bool) {
	if p == nil || blank(*p) {
		return "", false
	}
	return *p, true
}
