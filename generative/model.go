package generative

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"pgregory.net/rapid"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
)

// The exact messages the model asserts (section 7).
const (
	msgTrxIDUsed        = contract.MsgDuplicate
	msgInternalNoFunds  = contract.MsgInternalMethodFlag
	pathProvision       = "/client/v2/customer/provision_account"
	pathPayment         = "/client/v2/payment"
	pathStatus          = "/client/v2/payment/status"
	pathProfile         = "/client/v2/customer/profile"
	pathSync            = "/client/v2/product/sync"
	pathMethods         = "/client/v2/payment/methods"
	statusOK            = http.StatusOK
	statusCreated       = http.StatusCreated
	statusConflict      = http.StatusConflict
	statusBadRequest    = http.StatusBadRequest
	provisionedNewLabel = "cashier %d"
)

// mAccount is an account of the model with the wallet the document
// guarantees it holds: exactly what its payments' reported amounts leave,
// or, after a mixed payment (a wallet part and a remainder due through a
// gateway), a range up to that plus the wallet parts the mixed payments
// may not have taken yet (contract.WalletRange).
type mAccount struct {
	acc    *account
	wallet contract.WalletRange
	// given is the step that introduces a profile's customer to the
	// scenario ("" for the cashiers a step provisions).
	given string
	// mixedOnly: a customer whose wallet is short of a price (the
	// split-payment and mixed-payment customers) makes mixed payments only
	// (payMixed), is read and looks its payments up, but pays nothing else
	// and is not provisioned again: a reproduction meets its wallet as the
	// run left it, so the run spends it on what only it shows.
	mixedOnly bool
}

// mTrx is a transaction as it was created.
type mTrx struct {
	trxID, number string
	owner         *mAccount
	productID     int64
	amount        api.Amount
}

// amountOf reads an amount object (section 2.7).
func amountOf(v any) api.Amount {
	return api.Amount{Total: integer(dig(v, "total")), BalanceUsed: integer(dig(v, "balance_used")), CoinUsed: integer(dig(v, "coin_used")),
		CoinValueUsed: integer(dig(v, "coin_value_used")), GatewayPayment: integer(dig(v, "gateway_payment"))}
}

// machine is one stateful sequence against the target. It says each step
// it takes in the words of the suite's step definitions (the generated
// sequence steps of steps/), so that a failing sequence is a scenario
// `conformance FILE` runs against the target (see sequenceFeature).
type machine struct {
	w        *world
	rec      *record
	accounts []*mAccount
	trxs     []*mTrx
	// givens introduce the scenario's actors; lines are the steps taken
	// (each a line of Gherkin or a comment).
	givens   []string
	lines    []string
	cashiers int
	// sent are the requests of the steps taken, in order: a wallet's failure
	// is also printed as the script that sends them again
	// (reproduceSequence).
	sent []request
	// start is the funded customer's wallet when the sequence began, and
	// spend the most its payments may take: the scenario's funded customer
	// must hold them (fundsNeeded), or its replay could not show the fault.
	start, spend wallet
}

// fundedLine is the given that introduces the funded customer.
const fundedLine = "Given the funded customer of the partner"

// sequence runs one random sequence of operations and checks each answer
// against the model.
func (w *world) sequence(t *rapid.T, rec *record) {
	m := &machine{w: w, rec: rec}
	for _, acc := range []*account{w.funded, w.split, w.mixed} {
		if acc == nil {
			continue
		}
		wl, a, ok := w.walletOf(acc.Token)
		switch {
		case !ok && documentedFault(contract.OpGetCustomerProfile, a):
			t.Skip(acc.Label + "'s profile answered the documented 500: its wallet cannot be loaded now")
		case !ok:
			rec.fail(t, "", "%s's profile could not be read: status %d", acc.Label, a.Status)
		}
		if acc == w.funded {
			m.start = wl
		}
		m.accounts = append(m.accounts, &mAccount{acc: acc, wallet: contract.Exactly(contract.Wallet(wl)), given: acc.Label + " of the partner",
			mixedOnly: acc != w.funded})
	}
	if w.funded != nil {
		m.introduce(m.accounts[0])
	}
	m.provisionNew(t, true)
	if len(m.accounts) == 0 {
		t.Skip("the new cashier's profile answered the documented 500, and the profile names no customer")
	}
	actions := map[string]func(*rapid.T){
		"provision":   func(t *rapid.T) { m.provisionNew(t, false) },
		"reprovision": m.reprovision,
		"profile":     m.profile,
		"methods":     m.methods,
		"sync":        m.sync,
		// Payments are what the model is about: they are drawn three
		// times as often as any other operation.
		"pay":         m.pay,
		"pay2":        m.pay,
		"pay3":        m.pay,
		"payMixed":    m.payMixed,
		"payAgain":    m.payAgain,
		"status":      m.status,
		"otherStatus": m.otherPartnerStatus,
	}
	t.Repeat(actions)
}

// introduce gives the scenario the Given step of a profile's customer the
// sequence uses, once.
func (m *machine) introduce(ma *mAccount) *mAccount {
	if ma.given != "" {
		m.given(ma.given)
	}
	return ma
}

// given introduces an actor of the scenario, once.
func (m *machine) given(step string) {
	if line := "Given " + step; !slices.Contains(m.givens, line) {
		m.givens = append(m.givens, line)
	}
}

// say adds a step the sequence took.
func (m *machine) say(format string, args ...any) {
	m.lines = append(m.lines, fmt.Sprintf(format, args...))
}

// note adds a comment line under the last step: the details a step of
// the suite makes up itself (which phone number).
func (m *machine) note(format string, args ...any) {
	m.lines = append(m.lines, "  # "+fmt.Sprintf(format, args...))
}

// noteGiven adds a comment line under the last given.
func (m *machine) noteGiven(format string, args ...any) {
	m.givens = append(m.givens, "  # "+fmt.Sprintf(format, args...))
}

// fail ends the sequence: then is the step of the suite that makes the
// check that failed, and the shrunk sequence is written as a scenario
// and as a feature file ending with it.
func (m *machine) fail(t *rapid.T, then, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	scenario := m.scenario(firstLine(msg), then)
	m.rec.feature = sequenceFeature(m.rec.command, scenario, m.rec.strict)
	m.rec.fail(t, scenario, format, args...)
}

// failWallet is fail for the wallet of ma: the scenario is followed by the
// script that sends the sequence's requests again and checks that wallet
// as the model does (reproduceSequence), saying DEFECT or that it saw none.
func (m *machine) failWallet(t *rapid.T, ma *mAccount, then, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	scenario := m.scenario(firstLine(msg), then)
	m.rec.feature = sequenceFeature(m.rec.command, scenario, m.rec.strict)
	accounts := make([]*account, 0, len(m.accounts))
	for _, a := range m.accounts {
		accounts = append(accounts, a.acc)
	}
	script := m.w.reproduceSequence(firstLine(msg), ma.acc, accounts, m.sent)
	m.rec.fail(t, scenario+"\n"+SequenceScriptHead+"\n"+script, format, args...)
}

// SequenceScriptHead is the line of a sequence's reproduction that its sh
// script follows.
const SequenceScriptHead = "or with sh (the variables its first line names set):"

// reading grades a failed check that rests on the reading rd, made by the
// step then, as the suite's step grades it: a warning that shows the steps
// that earned it, or, in a strict run, the sequence's failure, written as
// a feature whose strict run fails at then.
func (m *machine) reading(t *rapid.T, rd contract.Reading, then, detail string) {
	if m.rec.strict {
		m.fail(t, then, "reading %s (strict run): %s", rd.ID, detail)
	}
	m.rec.warn(t, rd, detail, m.scenario(firstLine(detail), then))
}

// scenario writes the sequence as a Gherkin scenario: the givens, the
// steps taken, and then; a keyword that repeats the previous step's
// becomes And.
func (m *machine) scenario(name, then string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scenario: %s\n", name)
	prev := ""
	step := func(kw, text string) {
		if kw == prev {
			fmt.Fprintf(&b, "  And %s\n", text)
			return
		}
		prev = kw
		fmt.Fprintf(&b, "  %s %s\n", kw, text)
	}
	for _, l := range slices.Concat(m.givens, m.lines) {
		if strings.HasPrefix(l, "  # ") {
			fmt.Fprintf(&b, "  %s\n", l)
			continue
		}
		if l == fundedLine {
			l = "Given " + fundedGiven(m.w.fundsNeeded(m.start, m.spend))
		}
		kw, text, _ := strings.Cut(l, " ")
		step(kw, text)
	}
	step("Then", then)
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return s
}

func (m *machine) send(r request) answer {
	r.Secret = m.w.prof.SecretKey
	m.sent = append(m.sent, r)
	a := m.w.c.do(m.w.ctx, r)
	return a
}

// thenNoServerFault is the step that checks what expect checks; and
// thenNoFaultOnBrokenRequest the step that checks a request that breaks the
// schema as common does: no 5xx at all.
const (
	thenNoServerFault          = "the target answers without a server fault"
	thenNoFaultOnBrokenRequest = "the target answers the request that breaks the schema without a server fault"
)

// expect fails the sequence on a transport failure, a server fault the
// document does not give (contract.CheckNoServerFault) or an answer
// openapi.yaml does not allow. ok is false for a system fault the document
// gives op (a 500 of section 7 with its message): there is nothing more to
// check, and the model is unchanged.
func (m *machine) expect(t *rapid.T, op, what string, a answer) (d map[string]any, ok bool) {
	d = decode(a.Body)
	switch {
	case a.Err != nil:
		m.fail(t, thenNoServerFault, "%s: %v", what, a.Err)
	case a.Status >= 500:
		if err := contract.CheckNoServerFault(op, a.Status, str(d["message"])); err != nil {
			m.fail(t, thenNoServerFault, "%s: %v (body %s)", what, err, cut(a.Body))
		}
		return d, false
	case a.Invalid != nil:
		m.fail(t, thenNoServerFault, "%v", a.Invalid)
	}
	return d, true
}

// thenAnswer is the step that checks an answer's status and message.
func thenAnswer(status int, message string) string {
	return fmt.Sprintf("the answer comes back with status %d and the message %q", status, message)
}

// answered fails the sequence unless the answer a, decoded d, has status
// and message: the check of the step then (thenAnswer or its payment form).
func (m *machine) answered(t *rapid.T, then string, a answer, d map[string]any, status int, message string) {
	if err := contract.CheckAnswer(a.Status, str(d["message"]), status, message); err != nil {
		m.fail(t, then, "%v", err)
	}
}

func (m *machine) pick(t *rapid.T, label string) *mAccount {
	return m.introduce(rapid.SampledFrom(m.accounts).Draw(t, label))
}

// pickPaying draws an account that may pay anything, or be provisioned
// again: not one kept for mixed payments (mAccount.mixedOnly).
func (m *machine) pickPaying(t *rapid.T, label string) *mAccount {
	var paying []*mAccount
	for _, ma := range m.accounts {
		if !ma.mixedOnly {
			paying = append(paying, ma)
		}
	}
	return m.introduce(rapid.SampledFrom(paying).Draw(t, label))
}

// provisionNew provisions a new cashier, "cashier N"; first says it as the
// scenario's Given.
func (m *machine) provisionNew(t *rapid.T, first bool) {
	m.cashiers++
	acc := &account{Label: fmt.Sprintf(provisionedNewLabel, m.cashiers), Phone: m.w.uniquePhone(), Email: m.w.uniqueEmail(),
		Name: fmt.Sprintf("Kasir Generasi %d", m.cashiers)}
	if first {
		m.given("the partner provisioned a new cashier account, " + acc.Label)
		m.noteGiven("%s: phone %s", acc.Label, acc.Phone)
	} else {
		m.say("When the partner provisions a new cashier account, %s", acc.Label)
		m.note("%s: phone %s", acc.Label, acc.Phone)
	}
	body, _ := json.Marshal(map[string]string{"name": acc.Name, "phone_number": acc.Phone, "email": acc.Email})
	a := m.send(request{Method: http.MethodPost, Path: pathProvision, ContentType: "application/json", Body: body})
	d, _ := m.expect(t, contract.OpProvisionAccount, "provisioning a new cashier", a)
	m.answered(t, fmt.Sprintf("the provisioning of %s comes back with status %d and the message %q", acc.Label, statusCreated, contract.MsgSynced),
		a, d, statusCreated, contract.MsgSynced)
	acc.Token, acc.ID = str(dig(d, "data", "token")), integer(dig(d, "data", "customer_id"))
	wl, pa, ok := m.w.walletOf(acc.Token)
	if !ok {
		pd, fine := m.expect(t, contract.OpGetCustomerProfile, "reading the new account's profile", pa)
		if !fine {
			return // the documented 500: the account is not the model's
		}
		m.answered(t, thenAnswer(statusOK, contract.MsgOK), pa, pd, statusOK, contract.MsgOK)
	}
	m.accounts = append(m.accounts, &mAccount{acc: acc, wallet: contract.Exactly(contract.Wallet(wl))})
}

func (m *machine) reprovision(t *rapid.T) {
	ma := m.pickPaying(t, "account")
	acc := ma.acc
	if !contract.ValidMsisdn(acc.Phone) || acc.Name == "" || acc.Email == "" {
		t.Skip("the profile does not give a phone number in the form the document requires for provisioning")
	}
	// The wallet just before, so that a change is the provisioning's.
	m.profileOf(t, ma)
	m.say("When the partner provisions the phone number of %s again with the same name and email", acc.Label)
	body, _ := json.Marshal(map[string]string{"name": acc.Name, "phone_number": acc.Phone, "email": acc.Email})
	a := m.send(request{Method: http.MethodPost, Path: pathProvision, ContentType: "application/json", Body: body})
	d, _ := m.expect(t, contract.OpProvisionAccount, "provisioning a known phone number", a)
	m.answered(t, thenAnswer(statusOK, contract.MsgSynced), a, d, statusOK, contract.MsgSynced)
	if err := contract.CheckSameCustomer(acc.ID, integer(dig(d, "data", "customer_id"))); err != nil {
		m.fail(t, "the same customer id is returned", "%v", err)
	}
	if tok := str(dig(d, "data", "token")); tok != "" && tok != acc.Token {
		acc.Token = tok // §4.4: its token is returned
	}
	m.profileChecked(t, ma, contract.CheckSyncKeepsWallet) // a synchronized account keeps its wallet
}

func (m *machine) profile(t *rapid.T) {
	m.profileOf(t, m.pick(t, "account"))
}

// profileOf reads the profile of ma and compares its wallet with the model.
func (m *machine) profileOf(t *rapid.T, ma *mAccount) {
	m.profileChecked(t, ma, contract.CheckWalletAsReported)
}

// profileChecked reads the profile of ma and compares its wallet with the
// model by check: the rule of the step before it, whose failure it cites.
func (m *machine) profileChecked(t *rapid.T, ma *mAccount, check func(contract.WalletRange, contract.Wallet) (contract.Reading, error)) {
	m.say("When %s reads its profile", ma.acc.Label)
	a := m.send(request{Method: http.MethodGet, Path: pathProfile, Token: ma.acc.Token})
	d, fine := m.expect(t, contract.OpGetCustomerProfile, "reading a profile", a)
	if !fine {
		return // the documented 500: the model is unchanged
	}
	m.answered(t, thenAnswer(statusOK, contract.MsgOK), a, d, statusOK, contract.MsgOK)
	got := contract.Wallet{Balance: integer(dig(d, "data", "balance", "available")), Coins: integer(dig(d, "data", "coin", "available"))}
	then := ma.acc.Label + "'s wallet holds what the payments reported leave"
	switch rd, err := check(ma.wallet, got); {
	case err == nil:
	case rd.ID != "":
		m.reading(t, rd, then, fmt.Sprintf("%s: %v", ma.acc.Label, err))
	default:
		m.failWallet(t, ma, then, "%s: %v", ma.acc.Label, err)
	}
	ma.wallet = ma.wallet.Shown(got)
	value := integer(dig(d, "data", "coin", "available_value"))
	if err := contract.CheckCoinValue(got.Coins, value); err != nil {
		m.fail(t, thenCoinValue, "%v", err)
	}
	if err := contract.CheckCoinValueRoundsDown(got.Coins, value); err != nil {
		m.reading(t, readingCoinValueRoundsDown, thenCoinValue, err.Error())
	}
}

func (m *machine) methods(t *rapid.T) {
	ma := m.pick(t, "account")
	m.say("When %s lists the payment methods", ma.acc.Label)
	a := m.send(request{Method: http.MethodGet, Path: pathMethods, Token: ma.acc.Token})
	d, _ := m.expect(t, contract.OpListPaymentMethods, "listing the payment methods", a)
	m.answered(t, thenAnswer(statusOK, contract.MsgOK), a, d, statusOK, contract.MsgOK)
}

func (m *machine) sync(t *rapid.T) {
	sub := rapid.SampledFrom(subCategories).Draw(t, "sub_category")
	size := rapid.IntRange(1, 100).Draw(t, "pageSize")
	page := rapid.IntRange(1, 3).Draw(t, "page")
	m.given("the partner's main account")
	m.say("When the main account synchronizes page %d of the %q catalog with %d products per page", page, sub, size)
	a := m.send(request{Method: http.MethodGet, Path: pathSync, Token: m.w.prof.MainToken,
		Query: encodeQuery([][2]string{{"sub_category", sub}, {"page", fmt.Sprint(page)}, {"pageSize", fmt.Sprint(size)}})})
	d, fine := m.expect(t, contract.OpSyncProducts, "synchronizing the catalog", a)
	if !fine {
		return // the documented 500
	}
	msg := str(d["message"])
	if err := contract.CheckAnswer(a.Status, msg, statusOK, contract.MsgOK); err != nil &&
		contract.CheckAnswer(a.Status, msg, statusOK, contract.MsgSubCategoryInactive) != nil {
		m.fail(t, `the answer comes back with status 200 and the message "OK", or says the sub category is not yet available`, "%v", err)
	}
	list, _ := dig(d, "data", "products").([]any)
	if err := contract.CheckPageSize(len(list), size); err != nil {
		m.fail(t, fmt.Sprintf("no more than %d products are on the page", size), "%v", err)
	}
	if page == 1 {
		pg := func(k string) int64 { return integer(dig(d, "pagination", k)) }
		if err := contract.CheckTotalPages(pg("total"), pg("perPage"), pg("totalPages")); err != nil {
			m.fail(t, "the number of pages counts every product, the last page full or not", "%v", err)
		}
	}
}

// payable draws an active product with a price.
func (m *machine) product(t *rapid.T) product {
	var active []product
	for _, p := range m.w.products {
		if p.Active && p.Price > 0 {
			active = append(active, p)
		}
	}
	if len(active) == 0 {
		t.Skip("the catalog has no active product")
	}
	return rapid.SampledFrom(active).Draw(t, "product")
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// payer draws the account that pays: the funded customer (the only one
// whose balance can cover a price) half the time.
func (m *machine) payer(t *rapid.T) *mAccount {
	if m.w.funded != nil && rapid.Bool().Draw(t, "the funded customer pays?") {
		return m.introduce(m.accounts[0])
	}
	return m.pickPaying(t, "payer")
}

func (m *machine) pay(t *rapid.T) {
	ma := m.payer(t)
	p := m.product(t)
	methodID := int64(0)
	if len(m.w.methods) > 0 && rapid.IntRange(0, 3).Draw(t, "gateway?") == 0 {
		methodID = rapid.SampledFrom(m.w.methods).Draw(t, "method").ID
	}
	useBalance, useCoin := rapid.Bool().Draw(t, "use_balance"), rapid.Bool().Draw(t, "use_coin")
	if (useBalance || useCoin) && !ma.acc.spendable(wallet(ma.wallet.Reported), p.Price) {
		t.Skip("the funded customer keeps what the scenarios need")
	}
	m.payWith(t, ma, p, methodID, useBalance, useCoin)
}

// mixedChoice is a product and a gateway method for a mixed payment.
type mixedChoice struct {
	p product
	m method
}

// payMixed makes a mixed payment: an account whose wallet may hold balance
// or coins short of a price (the split-payment and mixed-payment customers,
// or a cashier the target funded as far as it does) pays for a product dearer than that part
// of its wallet, which the payment takes, through a gateway method whose
// minimum the rest reaches; the wallet is then read, or not.
func (m *machine) payMixed(t *rapid.T) {
	var holders []*mAccount
	for _, ma := range m.accounts {
		if most := ma.wallet.Most(); !ma.acc.Funded && (most.Balance > 0 || most.Coins >= contract.CoinsPerRupiah) {
			holders = append(holders, ma)
		}
	}
	if len(holders) == 0 {
		t.Skip("no account holds a wallet a price could go beyond")
	}
	ma := m.introduce(rapid.SampledFrom(holders).Draw(t, "payer with a wallet"))
	most := ma.wallet.Most()
	useBalance := most.Balance > 0 && (most.Coins < contract.CoinsPerRupiah || rapid.Bool().Draw(t, "from the balance?"))
	part := contract.CoinValue(most.Coins)
	if useBalance {
		part = most.Balance
	}
	var choices []mixedChoice
	for _, p := range m.w.products {
		for _, me := range m.w.methods {
			if p.Active && p.Price > part && p.Price-part >= me.Min {
				choices = append(choices, mixedChoice{p, me})
			}
		}
	}
	if len(choices) == 0 {
		t.Skip("no product is dearer than the wallet by a gateway method's minimum")
	}
	c := rapid.SampledFrom(choices).Draw(t, "product and method")
	m.payWith(t, ma, c.p, c.m.ID, useBalance, !useBalance)
	if rapid.Bool().Draw(t, "read the wallet after?") {
		m.profileOf(t, ma)
	}
}

// payWith has ma pay for p through method methodID with the use flags
// given, and checks the answer against the model.
func (m *machine) payWith(t *rapid.T, ma *mAccount, p product, methodID int64, useBalance, useCoin bool) {
	if ma.acc == m.w.funded {
		m.spend.Balance += p.Price * btoi(useBalance)
		m.spend.Coins += 2 * p.Price * btoi(useCoin)
	}
	trxID := m.w.uniqueTrxID()
	msisdn := msisdnFor(t, p.Operator)
	m.say("When %s pays for product %d (%d rupiah) to %q with payment method %d, balance %s, coins %s, as %q",
		ma.acc.Label, p.ID, p.Price, msisdn, methodID, onOff(useBalance), onOff(useCoin), trxID)
	body, _ := json.Marshal(map[string]any{"product_id": p.ID, "msisdn": msisdn, "payment_method_id": methodID,
		"use_balance": useBalance, "use_coin": useCoin, "partner_trx_id": trxID})
	a := m.send(request{Method: http.MethodPost, Path: pathPayment, Token: ma.acc.Token, ContentType: "application/json", Body: body})
	d, _ := m.expect(t, contract.OpCreatePayment, "creating a payment", a)
	if methodID == 0 && !useBalance && !useCoin {
		m.answered(t, fmt.Sprintf("the payment is refused with status %d and the message %q", statusBadRequest, msgInternalNoFunds),
			a, d, statusBadRequest, msgInternalNoFunds)
		return
	}
	if a.Status == statusConflict {
		m.fail(t, "the payment is not refused as a reuse of its partner transaction id", "a partner_trx_id never used before was refused as already used")
	}
	if a.Status != statusOK {
		return // refused: the model is unchanged, the next profile read checks it
	}
	// As the suite checks every payment it sees created (the method's fee
	// is checkSplit's); its replay fails at the payment step.
	pay, _, err := contract.ReadCreated(a.Body, trxID)
	if err != nil {
		m.fail(t, "the transaction number contains a slash and the partner transaction id is echoed", "%v", err)
		return
	}
	m.checkSplit(t, ma, pay.Amount, m.w.fee(methodID), useBalance, useCoin)
	ma.wallet = ma.wallet.After(pay.Amount)
	m.trxs = append(m.trxs, &mTrx{trxID: trxID, number: pay.TransactionNumber, owner: ma, productID: p.ID, amount: pay.Amount})
}

// checkSplit checks the amounts of a payment through a method whose
// service fee is fee against the wallet the model holds (the contract's
// CheckSplit), and grades how much of the rest the coins covered (a
// reading).
func (m *machine) checkSplit(t *rapid.T, ma *mAccount, am api.Amount, fee int64, useBalance, useCoin bool) {
	then := fmt.Sprintf("the payment takes from %s's wallet as the document splits it", ma.acc.Label)
	switch rd, err := contract.CheckSplit(ma.wallet, am, fee, useBalance, useCoin); {
	case err == nil:
	case rd.ID != "":
		m.reading(t, rd, then, err.Error())
	default:
		m.fail(t, then, "%v", err)
	}
	if useCoin {
		if err := contract.CheckCoinsCoverRemainder(ma.wallet, am); err != nil {
			m.reading(t, ReadingCoinsInFull, thenCoinsInFull, err.Error())
		}
	}
}

// The steps that check a reused partner_trx_id, a reused one with nothing
// payable (either row of section 7 is right: the document gives no order
// of checks), a status record (the reading status-record-amounts) and the
// coins of a payment (the reading generated-coins-cover-remainder).
var (
	thenDuplicate       = fmt.Sprintf("the payment is refused with status %d and the message %q", statusConflict, msgTrxIDUsed)
	thenDuplicateOrRule = fmt.Sprintf("the payment is refused with status %d and the message %q, or with status %d and the message %q",
		statusConflict, msgTrxIDUsed, statusBadRequest, msgInternalNoFunds)
	thenRecord      = "by the suite's reading the record shows the ids, product and amounts the payment was created with"
	thenCoinsInFull = "by the generated mode's reading the coins cover as much of the rest of the total as they can"
	// thenCoinValue checks the coin value at document level (either
	// rounding) and its rounding down by the reading coin-value-rounds-down.
	thenCoinValue = "the coin value is half the number of coins, rounded down"
)

func (m *machine) payAgain(t *rapid.T) {
	if len(m.trxs) == 0 {
		t.Skip("no transaction yet")
	}
	tr := rapid.SampledFrom(m.trxs).Draw(t, "transaction")
	ma := m.pickPaying(t, "payer")
	// Exactly one defect: the rest of the request could be paid, through a
	// gateway method (never the internal one, even when listed) or from
	// the balance. When nothing is payable, the request also breaks rule 2
	// (method 0 with neither balance nor coins), and either answer is right.
	fromBalance := func(p product) bool {
		return ma.wallet.Reported.Balance >= p.Price && ma.acc.spendable(wallet(ma.wallet.Reported), p.Price)
	}
	var payable []product
	for _, p := range m.w.products {
		if p.Active && p.Price > 0 && (len(m.w.fitting(p.Price)) > 0 || fromBalance(p)) {
			payable = append(payable, p)
		}
	}
	methodID, useBalance := int64(contract.InternalMethodID), false
	var p product
	if len(payable) == 0 {
		p = m.product(t)
	} else {
		p = rapid.SampledFrom(payable).Draw(t, "product")
		if gateway := m.w.fitting(p.Price); len(gateway) > 0 {
			methodID = rapid.SampledFrom(gateway).Draw(t, "method").ID
		} else {
			useBalance = true
		}
	}
	if ma.acc == m.w.funded { // a server that debits a reused id takes it
		m.spend.Balance += p.Price * btoi(useBalance)
	}
	msisdn := msisdnFor(t, p.Operator)
	m.say("When %s pays again with the partner transaction id %q for product %d to %q with payment method %d, balance %s",
		ma.acc.Label, tr.trxID, p.ID, msisdn, methodID, onOff(useBalance))
	body, _ := json.Marshal(map[string]any{"product_id": p.ID, "msisdn": msisdn, "payment_method_id": methodID,
		"use_balance": useBalance, "partner_trx_id": tr.trxID})
	a := m.send(request{Method: http.MethodPost, Path: pathPayment, Token: ma.acc.Token, ContentType: "application/json", Body: body})
	d, _ := m.expect(t, contract.OpCreatePayment, "paying with a used partner_trx_id", a)
	if len(payable) > 0 {
		m.answered(t, thenDuplicate, a, d, statusConflict, msgTrxIDUsed)
		return
	}
	if err := contract.CheckAnswerEither(a.Status, str(d["message"]), statusConflict, msgTrxIDUsed, statusBadRequest, msgInternalNoFunds); err != nil {
		m.fail(t, thenDuplicateOrRule, "%v", err)
	}
}

func (m *machine) status(t *rapid.T) {
	if len(m.trxs) == 0 {
		t.Skip("no transaction yet")
	}
	tr := rapid.SampledFrom(m.trxs).Draw(t, "transaction")
	byNumber := rapid.Bool().Draw(t, "by transaction number?")
	q := [][2]string{{"partner_trx_id", tr.trxID}}
	how := "partner transaction id"
	if byNumber {
		q, how = [][2]string{{"transaction_number", tr.number}}, "transaction number"
	}
	m.say("When %s looks up the payment %q by its %s", tr.owner.acc.Label, tr.trxID, how)
	a := m.send(request{Method: http.MethodGet, Path: pathStatus, Token: tr.owner.acc.Token, Query: encodeQuery(q)})
	d, _ := m.expect(t, contract.OpGetPaymentStatus, "looking up a payment", a)
	m.answered(t, thenAnswer(statusOK, contract.MsgOK), a, d, statusOK, contract.MsgOK)
	rec := dig(d, "data")
	got := contract.Record{PartnerTrxID: str(dig(rec, "partner_trx_id")), TransactionNumber: str(dig(rec, "transaction_number")),
		ProductID: integer(dig(rec, "product", "id")), Amount: amountOf(dig(rec, "amount"))}
	created := contract.Record{PartnerTrxID: tr.trxID, TransactionNumber: tr.number, ProductID: tr.productID, Amount: tr.amount}
	if err := contract.CheckRecordNamed(created, got); err != nil {
		m.fail(t, thenRecord, "%v", err)
	}
	if err := contract.CheckRecordAsCreated(created, got); err != nil {
		m.reading(t, readingRecordAmounts, thenRecord, err.Error())
	}
}

func (m *machine) otherPartnerStatus(t *rapid.T) {
	sp := m.w.prof.SecondPartner
	if sp == nil || sp.SecretKey == "" || sp.MainToken == "" || len(m.trxs) == 0 {
		t.Skip("no second partner or no transaction")
	}
	tr := rapid.SampledFrom(m.trxs).Draw(t, "transaction")
	m.given("the main account of the other partner")
	m.say("When the other partner's main account looks up the payment %q by its partner transaction id", tr.trxID)
	a := m.w.c.do(m.w.ctx, request{Method: http.MethodGet, Path: pathStatus, Secret: sp.SecretKey, Token: sp.MainToken,
		Query: encodeQuery([][2]string{{"partner_trx_id", tr.trxID}})})
	d, _ := m.expect(t, contract.OpGetPaymentStatus, "another partner's lookup", a)
	if err := contract.CheckNotShown(a.Status, d["data"], tr.trxID, ""); err != nil {
		m.fail(t, "the other partner is not shown the cashier's transaction", "%v", err)
	}
}
