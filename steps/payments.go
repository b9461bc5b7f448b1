package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
)

// payment is one attempt to create a payment, and the answer.
type payment struct {
	by      *account
	product product
	// via is the gateway method paid through; nil for balance/coins (id 0).
	via    *method
	body   map[string]any
	ex     *exchange
	before wallet
	// known is what the scenario knows of the payer's wallet before the
	// payment: before, or a range after a mixed payment.
	known contract.WalletRange
	res   *contract.Payment
}

// amount is the amount object of section 2.7, as the contract checks it.
type amount = api.Amount

func (s *scenario) registerPayments(sc stepper) {
	sc.Step(`^`+actorRE+` sends a payment with the (product|destination number|payment method|partner transaction id) (missing|empty)$`, s.payIncomplete)
	sc.Step(`^`+actorRE+` pays with a payment method that is not offered$`, s.payUnofferedMethod)
	sc.Step(`^`+actorRE+` pays with the balance and coin method with (neither balance nor coins chosen|balance and coins both turned off)$`, s.payInternalWithoutFunds)
	sc.Step(`^`+actorRE+` (pays|paid) for a product through a payment gateway$`, func(ctx context.Context, actor, tense string) error {
		return s.payGateway(ctx, actor, tense == "paid", nil)
	})
	sc.Step(`^`+actorRE+` pays for a product through a payment gateway without balance or coins$`, func(ctx context.Context, actor string) error {
		return s.payGateway(ctx, actor, true, func(body map[string]any) { body["use_balance"], body["use_coin"] = false, false })
	})
	sc.Step(`^`+actorRE+` pays for a product through a payment gateway with a (partner transaction id|shift code) of (\d+) (characters|multi-byte characters)$`, s.payGatewayWithLength)
	sc.Step(`^`+actorRE+` pays for a product through a payment gateway with the (promotion id|parts|shift code) null$`, s.payGatewayWithNull)
	sc.Step(`^`+actorRE+` pays for an inactive product of the catalog from balance and coins$`, s.payInactive)
	sc.Step(`^the payment is not created$`, s.notCreated)
	sc.Step(`^the payment method is the balance and coin method, with code BALANCE, gateway SALDO and type COIN$`, s.internalMethodNamed)
	sc.Step(`^`+actorRE+` (pays|paid) for the cheapest product (from balance and coins|with coins only)$`, s.payCheapest)
	sc.Step(`^`+actorRE+` pays for a product dearer than its balance from balance and coins$`, s.paySplit)
	sc.Step(`^`+actorRE+` pays from its balance for a product dearer than it, the rest through a payment gateway$`, s.payMixed)
	sc.Step(`^`+actorRE+` pays for the product that cannot be processed yet$`, s.payUnprocessable)
	sc.Step(`^`+actorRE+` pays for a product of the partner's catalog from balance and coins$`, s.payFromMainCatalog)
	sc.Step(`^`+actorRE+` pays again with the same partner transaction id$`, func(ctx context.Context, actor string) error {
		return s.payAgain(ctx, actor, false)
	})
	sc.Step(`^`+actorRE+` pays again with the same partner transaction id for another product and number$`, func(ctx context.Context, actor string) error {
		return s.payAgain(ctx, actor, true)
	})
	sc.Step(`^`+actorRE+` pays again with the same partner transaction id, with the balance and coin method and neither balance nor coins chosen$`, s.payAgainWithNothing)
	sc.Step(`^`+actorRE+` pays for a product through a payment gateway with the partner transaction id of the cashier's payment$`, func(ctx context.Context, actor string) error {
		first, err := s.created()
		if err != nil {
			return err
		}
		return s.payGateway(ctx, actor, false, func(body map[string]any) { body["partner_trx_id"] = first.body["partner_trx_id"] })
	})

	// The steps of a generated sequence (generative/model.go).
	sc.Step(`^`+actorRE+` pays for product (\d+) \((\d+) rupiah\) to "([^"]*)" with payment method (\d+), balance (on|off), coins (on|off), as "([^"]*)"$`, s.payAsWritten)
	sc.Step(`^`+actorRE+` pays again with the partner transaction id "([^"]*)" for product (\d+) to "([^"]*)" with payment method (\d+), balance (on|off)$`, s.payAgainAsWritten)
	sc.Step(`^the payment is not refused as a reuse of its partner transaction id$`, s.notRefusedAsReuse)
	sc.Step(`^the payment takes from `+actorRE+`'s wallet as the document splits it$`, s.takesAsSplit)
	sc.Step(`^by the generated mode's reading the coins cover as much of the rest of the total as they can$`, s.coinsCoverRest)

	sc.Step(`^the payment is paid, with a documented transaction status$`, s.paid)
	sc.Step(`^the transaction number contains a slash and the partner transaction id is echoed$`, s.numberAndEcho)
	sc.Step(`^the amount charged is the final price in the payer's own catalog$`, s.chargedFinalPrice)
	sc.Step(`^no payment through a gateway is required$`, s.noGateway)
	sc.Step(`^the developer notes are present$`, s.developerNotes)
	sc.Step(`^the whole price is taken from the balance and no coins are taken$`, s.balanceFirst)
	sc.Step(`^the whole balance is used and coins make up the rest$`, s.splitArithmetic)
	sc.Step(`^no balance is taken and the coins taken are twice their rupiah value$`, s.coinsOnly)
	sc.Step(`^the wallet is debited by exactly the amounts reported$`, s.debitedAsReported)
	sc.Step(`^the wallet was debited only once, by the first payment$`, s.debitedOnce)
	sc.Step(`^nothing was taken from the wallet$`, s.nothingTaken)
	sc.Step(`^no coins are taken$`, s.noCoinsTaken)
	sc.Step(`^balance and coins together pay no more than the total$`, s.walletWithinTotal)
	sc.Step(`^a remainder is due through the payment gateway$`, s.remainderDue)
	sc.Step(`^the payment is refused with status (\d+) and a message$`, s.refusedWithAnyMessage)
}

func (s *scenario) nextTrxID() string {
	return fmt.Sprintf("conf-%s-%d", s.h.runID, s.h.next())
}

// baseBody is a complete payment request for product p.
func (s *scenario) baseBody(p product, methodID int64, useBalance, useCoin bool) map[string]any {
	return map[string]any{
		"product_id":        p.ID,
		"msisdn":            destination(p, s.h.runID, s.h.next()),
		"payment_method_id": methodID,
		"use_balance":       useBalance,
		"use_coin":          useCoin,
		"partner_trx_id":    s.nextTrxID(),
	}
}

// pay sends one payment request and decodes a success.
func (s *scenario) pay(ctx context.Context, a *account, p product, body map[string]any) (*payment, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	pm := &payment{by: a, product: p, body: body, before: s.wallets[a.actor], known: s.reportedWallet(a.actor)}
	if s.synced == a {
		s.synced = nil // a change of its wallet is no longer the provisioning's alone
	}
	s.attempt = pm
	pm.ex, err = s.send(func() (*http.Response, error) {
		return s.api().CreatePaymentWithBody(ctx, "application/json", bytes.NewReader(raw), a.creds())
	})
	if err != nil {
		return pm, err
	}
	if pm.ex.Status == http.StatusOK {
		res, _, err := contract.ReadCreated(pm.ex.RespBody, fmt.Sprint(pm.body["partner_trx_id"]))
		pm.res = res
		if res != nil && s.payment == nil {
			s.payment = pm
		}
		if res != nil && err == nil {
			s.h.created.add(CreatedPayment{SecretKey: a.partner.secretKey, Token: a.token, Actor: a.actor,
				PartnerTrxID: res.PartnerTrxID, TransactionNumber: res.TransactionNumber})
		}
		if err := s.paymentLawful(pm, err); err != nil {
			return pm, err
		}
	}
	return pm, nil
}

// paymentLawful grades what every judge checks of a created payment
// (contract.ReadCreated's error read): status true and the success message,
// the transaction's number and echoed id, the amount arithmetic (§2.7, §4.6
// rule 4: balance and coins never pay more than the total); and, when
// use_coin was sent false, that no coins were taken.
func (s *scenario) paymentLawful(pm *payment, read error) error {
	if read != nil {
		section, wants := contract.SentenceWalletWithinTotal+" "+secCoinValue, "an amount whose parts cover the total and no more from the wallet"
		switch {
		case pm.res == nil && errors.Is(read, contract.ErrCreatedData):
			section, wants = contract.SentenceCreatedData, "data with integer amounts"
		case pm.res == nil:
			return s.envelopeFailure(pm.ex, read)
		case errors.Is(read, contract.ErrCreatedAnswer):
			section, wants = contract.SentenceCreated, fmt.Sprintf("status true and the message %q", contract.MsgCreated)
		case errors.Is(read, contract.ErrTransactionNamed):
			section, wants = secTransaction, "a transaction_number with slashes and the partner_trx_id sent"
		}
		return s.failure(pm.ex, section, wants, "%v", read)
	}
	if useCoin, sent := pm.body["use_coin"].(bool); sent && !useCoin {
		if err := contract.CheckCoinsOnlyWhenAsked(pm.res.Amount); err != nil {
			return s.failure(pm.ex, contract.SentenceCoinsOnlyWhenAsked, "coin_used 0 and coin_value_used 0", "%v", err)
		}
	}
	return nil
}

// created returns the payment whose success the current check is about.
func (s *scenario) created() (*payment, error) {
	pm := s.payment
	if pm == nil {
		if s.attempt != nil {
			return nil, s.failure(s.attempt.ex, secCreated, "a created payment", "the payment was not created")
		}
		return nil, fmt.Errorf("no payment was created before this check")
	}
	return pm, nil
}

// payIncomplete sends a payment whose only defect is the field left out:
// otherwise it is payable, through a gateway method whose minimum the
// product's price reaches, so any order of checks gives the same answer.
func (s *scenario) payIncomplete(ctx context.Context, actor, field, how string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	m, p, err := s.gatewayChoice(ctx, a)
	if err != nil {
		return err
	}
	body := s.baseBody(p, m.ID, true, true)
	key := map[string]string{"product": "product_id", "destination number": "msisdn",
		"payment method": "payment_method_id", "partner transaction id": "partner_trx_id"}[field]
	if how == "missing" {
		delete(body, key)
		s.restsOn = "required-field-missing-is-empty"
	} else {
		body[key] = ""
	}
	_, err = s.pay(ctx, a, p, body)
	return err
}

func (s *scenario) payUnofferedMethod(ctx context.Context, actor string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	ms, err := s.methods(ctx, a)
	if err != nil {
		return err
	}
	var max int64
	for _, m := range ms {
		if m.ID > max {
			max = m.ID
		}
	}
	p, err := s.cheapest(ctx, a.partner)
	if err != nil {
		return err
	}
	_, err = s.pay(ctx, a, p, s.baseBody(p, max+1000, true, true))
	s.restsOn = "unlisted-method-not-available"
	return err
}

func (s *scenario) payInternalWithoutFunds(ctx context.Context, actor, choice string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	p, err := s.cheapest(ctx, a.partner)
	if err != nil {
		return err
	}
	body := s.baseBody(p, 0, false, false)
	if strings.HasPrefix(choice, "neither") {
		delete(body, "use_balance")
		delete(body, "use_coin")
		s.restsOn = "use-flags-left-out-are-off"
	}
	_, err = s.pay(ctx, a, p, body)
	return err
}

// payGateway pays with a gateway method, from an account whose balance and
// coins do not cover the price (a new cashier has none). With mustSucceed
// (a Given step) anything but a created payment fails the step.
func (s *scenario) payGateway(ctx context.Context, actor string, mustSucceed bool, edit func(map[string]any)) error {
	return s.payGatewayAbove(ctx, actor, 0, mustSucceed, edit)
}

// payGatewayAbove is payGateway for a product dearer than part by a gateway
// method's minimum at least (gatewayChoiceAbove).
func (s *scenario) payGatewayAbove(ctx context.Context, actor string, part int64, mustSucceed bool, edit func(map[string]any)) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	m, p, err := s.gatewayChoiceAbove(ctx, a, part)
	if err != nil {
		return err
	}
	body := s.baseBody(p, m.ID, true, true)
	if edit != nil {
		edit(body)
	}
	pm, err := s.pay(ctx, a, p, body)
	if pm != nil {
		pm.via = &m
	}
	if err != nil {
		return err
	}
	s.h.gateway.tried(pm)
	if pm.ex != nil && pm.ex.Status == http.StatusUnprocessableEntity {
		// §7 Payment: 422 "Payment cannot be processed yet", with no word on
		// when: a target that cannot take this gateway payment now shows
		// nothing of what the scenario checks, so its rule is not judged
		// (neither failed nor passed). A refusal whose body breaks the
		// document is a failure.
		env, err := s.envelope(pm.ex)
		if err != nil {
			return err
		}
		return s.notJudgedBecause(gatewayRefusal(pm.ex.Status, env.Message),
			fmt.Sprintf("the target refused a payment through gateway method %d with %d %q, so the scenario cannot observe what it checks", m.ID, pm.ex.Status, env.Message))
	}
	if pm.res == nil && slices.Contains(s.taggedReadings(), readingGatewayCreated) && !s.documentedRefusal(pm.ex) {
		// That a payment through a method whose minimum the price reaches
		// is created is the reading; a refusal no row of section 7 names
		// departs from it, not from the document, and leaves the rest of
		// the scenario nothing to check.
		err := s.reading(contract.MustReading(readingGatewayCreated), s.failure(pm.ex, secRemainder,
			"a created payment through gateway method "+fmt.Sprint(m.ID), "got status %d", pm.ex.Status))
		if err != nil {
			return err
		}
		return fmt.Errorf("%w: the gateway payment was refused (a warning of reading %s); the remaining steps are not run", godog.ErrSkip, readingGatewayCreated)
	}
	if mustSucceed && pm.res == nil {
		// The document does not promise that a given gateway payment
		// succeeds (422 "Payment cannot be processed yet"), so a scenario
		// that needs one cannot go on.
		return s.notJudged(fmt.Sprintf("a payment through gateway method %d was not created (status %d), so the scenario cannot go on", m.ID, pm.ex.Status))
	}
	return nil
}

// readingGatewayCreated is the reading that a gateway payment is created.
const readingGatewayCreated = "gateway-remainder-is-created"

// documentedRefusal reports whether ex is a refusal of a payment that a
// row of section 7 names: its status with one of the row's messages.
func (s *scenario) documentedRefusal(ex *exchange) bool {
	env, err := s.envelope(ex)
	if err != nil {
		return false
	}
	for _, r := range contract.RowsOf(contract.OpCreatePayment, ex.Status) {
		if r.Allows(env.Message) {
			return true
		}
	}
	return false
}

// payGatewayWithLength pays with a partner_trx_id or shift_code of n
// characters; multi-byte ones are "é" (2 bytes each in UTF-8), since section
// 8 counts characters, not bytes.
func (s *scenario) payGatewayWithLength(ctx context.Context, actor, field string, n int, kind string) error {
	fill := "x"
	if kind == "multi-byte characters" {
		fill = "é"
	}
	return s.payGateway(ctx, actor, false, func(body map[string]any) {
		if field == "partner transaction id" {
			prefix := []rune(s.nextTrxID() + "-")
			v := append(prefix, []rune(strings.Repeat(fill, max(0, n-len(prefix))))...)
			body["partner_trx_id"] = string(v[:n])
		} else {
			body["shift_code"] = strings.Repeat(map[string]string{"x": "S", "é": "é"}[fill], n)
		}
	})
}

// payGatewayWithNull pays with an optional field of section 4.6 sent as
// null ("integer or null", "object or null", "string or null").
func (s *scenario) payGatewayWithNull(ctx context.Context, actor, field string) error {
	key := map[string]string{"promotion id": "promotion_id", "parts": "parts", "shift code": "shift_code"}[field]
	return s.payGateway(ctx, actor, false, func(body map[string]any) { body[key] = nil })
}

// payInactive pays, from balance and coins, for a product the catalog shows
// as inactive (section 3: "Not available for sale"). A funded payer's
// balance covers it, so the product is the request's only defect; a payer
// with an empty wallet (a new cashier) meets the refusal of an empty wallet
// as well, and either refusal is right. Without such an inactive product in
// the catalog the scenario is skipped.
func (s *scenario) payInactive(ctx context.Context, actor string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	c, err := s.catalog(ctx, a.partner)
	if err != nil {
		return err
	}
	w := s.wallets[actor]
	for _, p := range c.products {
		if p.Status == "inactive" && (p.FinalPrice <= w.balance || w == wallet{}) {
			_, err = s.pay(ctx, a, p, s.baseBody(p, 0, true, true))
			return err
		}
	}
	return s.notJudged("the catalog of " + a.partner.label + " shows no inactive product the payer's balance covers")
}

// notCreated checks that the last payment was not created: section 4.6
// rule 3 gives success as HTTP 200.
func (s *scenario) notCreated() error {
	pm := s.attempt
	if pm == nil {
		return fmt.Errorf("no payment was attempted before this check")
	}
	if pm.ex.Status/100 == 2 {
		return s.failure(pm.ex, secInactive, "no payment created for an inactive product", "got status %d", pm.ex.Status)
	}
	return nil
}

// internalMethodNamed checks section 2.4: "The internal balance/coin method
// (id 0) is returned in a payment with code BALANCE, gateway SALDO, type COIN."
func (s *scenario) internalMethodNamed() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	var body struct {
		Data struct {
			Method map[string]any `json:"payment_method"`
		} `json:"data"`
	}
	if err := decode(pm.ex.RespBody, &body); err != nil {
		return s.failure(pm.ex, secInternalMethod, "data.payment_method", "%v", err)
	}
	m := body.Data.Method
	id, _ := integer(m["id"])
	if id != 0 || m["code"] != "BALANCE" || m["gateway"] != "SALDO" || m["type"] != "COIN" {
		return s.failure(pm.ex, secInternalMethod, "payment_method id 0, code BALANCE, gateway SALDO, type COIN",
			"payment_method is %v", m)
	}
	return nil
}

func (s *scenario) payCheapest(ctx context.Context, actor, tense, how string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	p, err := s.cheapest(ctx, a.partner)
	if err != nil {
		return err
	}
	useBalance := how == "from balance and coins"
	pm, err := s.pay(ctx, a, p, s.baseBody(p, 0, useBalance, true))
	if err != nil {
		return err
	}
	if tense == "paid" && pm.res == nil {
		return s.failure(pm.ex, secCreated, "a created payment", "the payment was not created")
	}
	return nil
}

func (s *scenario) paySplit(ctx context.Context, actor string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	w := s.wallets[actor]
	c, err := s.catalog(ctx, a.partner)
	if err != nil {
		return err
	}
	for _, p := range activeByPrice(c.products) {
		if p.FinalPrice > w.balance && p.FinalPrice <= w.balance+contract.CoinValue(w.coins) {
			_, err = s.pay(ctx, a, p, s.baseBody(p, 0, true, true))
			return err
		}
	}
	return s.notJudged(fmt.Sprintf("profile split_customer: no active product is priced above its balance %d and at most balance + coins/2 = %d; give it a smaller balance and more coins",
		w.balance, w.balance+contract.CoinValue(w.coins)))
}

// payMixed makes a mixed payment: actor pays from its balance, coins off,
// for a product dearer than the balance by a gateway method's minimum at
// least, through that method: the balance is taken and the rest goes to
// the gateway (an empty balance leaves a payment through the gateway
// alone). What the payment reports taking leaves the wallet; the document
// does not say whether it takes it now or when the gateway part is paid
// (reportedWallet).
func (s *scenario) payMixed(ctx context.Context, actor string) error {
	err := s.payGatewayAbove(ctx, actor, max(s.wallets[actor].balance, 0), false, func(body map[string]any) {
		body["use_balance"], body["use_coin"] = true, false
	})
	if pm := s.attempt; err == nil && pm != nil && pm.res != nil {
		s.setReported(actor, pm.known.After(pm.res.Amount))
	}
	return err
}

func (s *scenario) payUnprocessable(ctx context.Context, actor string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	p := product{ID: s.h.profile.Fixtures.UnprocessableProductID}
	// The catalog names the product's operator, when it lists it, so that
	// the destination number fits it.
	if c, err := s.catalog(ctx, a.partner); err == nil {
		for _, q := range c.products {
			if q.ID == p.ID {
				p = q
			}
		}
	}
	_, err = s.pay(ctx, a, p, s.baseBody(p, 0, true, true))
	return err
}

// payFromMainCatalog pays, as actor, for a product of the main partner's
// catalog through a gateway method the main partner offers and whose minimum
// the price reaches: a request payable but for the actor's partner (the one
// whose price plan is not active), so any order of checks answers alike.
func (s *scenario) payFromMainCatalog(ctx context.Context, actor string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	mp := s.mainPartner()
	m, p, err := s.gatewayChoice(ctx, &account{actor: "main account of " + mp.label, partner: mp, token: mp.mainToken})
	if err != nil {
		return err
	}
	_, err = s.pay(ctx, a, p, s.baseBody(p, m.ID, true, true))
	return err
}

func (s *scenario) payAgain(ctx context.Context, actor string, different bool) error {
	return s.payAgainEdited(ctx, actor, different, nil)
}

// payAgainWithNothing sends the first payment again, with the balance and
// coin method and neither balance nor coins enabled: the request meets the
// 409 row and the 400 rule of section 4.6 rule 2, which the document does
// not order.
func (s *scenario) payAgainWithNothing(ctx context.Context, actor string) error {
	return s.payAgainEdited(ctx, actor, false, func(body map[string]any) {
		body["payment_method_id"], body["use_balance"], body["use_coin"] = int64(contract.InternalMethodID), false, false
	})
}

// payAgainEdited sends the first payment's body again (for another product
// and number when different), changed by edit when set.
func (s *scenario) payAgainEdited(ctx context.Context, actor string, different bool, edit func(map[string]any)) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	first, err := s.created()
	if err != nil {
		return err
	}
	body := map[string]any{}
	for k, v := range first.body {
		body[k] = v
	}
	if edit != nil {
		edit(body)
	}
	p := first.product
	if different {
		c, err := s.catalog(ctx, a.partner)
		if err != nil {
			return err
		}
		for _, q := range activeByPrice(c.products) {
			if q.ID != p.ID {
				p = q
				break
			}
		}
		body["product_id"] = p.ID
		body["msisdn"] = destination(p, s.h.runID, s.h.next())
	}
	_, err = s.pay(ctx, a, p, body)
	return err
}

// transactionStatuses are the transaction_status values of section 3.
var transactionStatuses = []string{"WAITING_PAYMENT", "PROCESSING", "SUCCESS", "FAILED"}

// paid checks a fully covered payment: PAID ("Payment finished") with a
// documented transaction status; PROCESSING is the observed combination, a
// reading, since transitions are not shown (a server may settle at once).
func (s *scenario) paid() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	if pm.res.Amount.GatewayPayment != 0 {
		return s.notJudged(fmt.Sprintf("profile funded_customer: the payment was not fully covered by balance and coins (gateway_payment %d); fund the customer", pm.res.Amount.GatewayPayment))
	}
	if pm.res.PaymentStatus != "PAID" || !slices.Contains(transactionStatuses, pm.res.TransactionStatus) {
		return s.failure(pm.ex, secPaid, fmt.Sprintf("payment_status PAID and a transaction status of %v", transactionStatuses),
			"payment_status %s and status %s", pm.res.PaymentStatus, pm.res.TransactionStatus)
	}
	if pm.res.TransactionStatus != "PROCESSING" {
		return s.reading(contract.MustReading("paid-processing"), s.failure(pm.ex, secObserved, "transaction status PROCESSING", "status %s", pm.res.TransactionStatus))
	}
	return nil
}

func (s *scenario) numberAndEcho() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	want := fmt.Sprint(pm.body["partner_trx_id"])
	if err := contract.CheckTransactionNamed(pm.res.TransactionNumber, pm.res.PartnerTrxID, want); err != nil {
		return s.failure(pm.ex, secTransaction, fmt.Sprintf("a transaction_number with slashes and partner_trx_id %q", want), "%v", err)
	}
	return nil
}

// chargedFinalPrice checks amount.total against the final_price the payer's
// own catalog shows (reading charged-final-price). The document does not say
// whether a gateway method's service fee is part of the total, so through a
// gateway either the final price or the final price plus that method's
// service_fee.amount is accepted.
func (s *scenario) chargedFinalPrice(ctx context.Context) error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	c, err := s.catalog(ctx, pm.by.partner)
	if err != nil {
		return err
	}
	return s.reading(contract.MustReading("charged-final-price"), s.checkCharged(pm, c))
}

func (s *scenario) checkCharged(pm *payment, c catalogRead) error {
	for _, p := range c.products {
		if p.ID != pm.product.ID {
			continue
		}
		total := pm.res.Amount.Total
		want := fmt.Sprintf("amount.total %d, the final_price %s's catalog shows for product %d", p.FinalPrice, pm.by.partner.label, p.ID)
		ok := total == p.FinalPrice
		if pm.via != nil {
			want += fmt.Sprintf(", or %d, that price plus the service_fee.amount %d of payment method %d", p.FinalPrice+pm.via.ServiceFee, pm.via.ServiceFee, pm.via.ID)
			ok = ok || total == p.FinalPrice+pm.via.ServiceFee
		}
		if !ok {
			return s.failure(pm.ex, secChargedPrice, want, "amount.total is %d (base_price is %d)", total, p.BasePrice)
		}
		return nil
	}
	return s.failure(c.ex, secChargedPrice, fmt.Sprintf("product %d in the catalog of %s", pm.product.ID, pm.by.partner.label), "the catalog does not list it")
}

func (s *scenario) noGateway() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	a := pm.res.Amount
	var problem error
	switch {
	case a.GatewayPayment != 0 || pm.res.IsRequired || pm.res.PaymentAmount != 0:
		problem = s.failure(pm.ex, secIsRequired, "gateway_payment 0, payment.is_required false and payment.amount 0",
			"gateway_payment %d, is_required %v, payment.amount %d", a.GatewayPayment, pm.res.IsRequired, pm.res.PaymentAmount)
	case a.BalanceUsed+a.CoinValueUsed != a.Total:
		problem = s.failure(pm.ex, secRemainder, fmt.Sprintf("balance_used + coin_value_used = total %d", a.Total),
			"balance_used %d + coin_value_used %d", a.BalanceUsed, a.CoinValueUsed)
	}
	return s.reading(contract.MustReading("no-remainder-fields"), problem)
}

func (s *scenario) developerNotes() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	if strings.TrimSpace(pm.res.CoinNote) == "" || strings.TrimSpace(pm.res.GatewayNote) == "" {
		return s.failure(pm.ex, secDeveloperNotes, "non-empty developer_notes.coin_conversion and developer_notes.gateway_payment",
			"coin_conversion %q, gateway_payment %q", pm.res.CoinNote, pm.res.GatewayNote)
	}
	return nil
}

func (s *scenario) balanceFirst() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	a := pm.res.Amount
	if pm.before.balance < a.Total {
		return s.notJudged(fmt.Sprintf("profile funded_customer: its balance %d does not cover the cheapest product (%d); fund the customer", pm.before.balance, a.Total))
	}
	if a.BalanceUsed != a.Total || a.CoinUsed != 0 || a.CoinValueUsed != 0 || a.GatewayPayment != 0 {
		return s.failure(pm.ex, secBalanceFirst,
			fmt.Sprintf("balance_used %d (the total; the balance before was %d), coin_used 0, coin_value_used 0, gateway_payment 0", a.Total, pm.before.balance),
			"balance_used %d, coin_used %d, coin_value_used %d, gateway_payment %d", a.BalanceUsed, a.CoinUsed, a.CoinValueUsed, a.GatewayPayment)
	}
	return nil
}

// splitArithmetic checks a payment of a short balance: all of it is used
// and coins cover the rest (reading short-balance-all-used, which rule 1's
// "Balance is used first" does not fix).
func (s *scenario) splitArithmetic() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	a, b := pm.res.Amount, pm.before.balance
	rest := a.Total - b
	if a.BalanceUsed != b || a.CoinValueUsed != rest || a.CoinUsed != contract.CoinsFor(rest) || a.GatewayPayment != 0 {
		return s.reading(contract.MustReading("short-balance-all-used"), s.failure(pm.ex, secBalanceFirst+" "+secCoinValue,
			fmt.Sprintf("balance_used %d (the whole balance), coin_value_used %d, coin_used %d, gateway_payment 0 for a total of %d", b, rest, contract.CoinsFor(rest), a.Total),
			"balance_used %d, coin_value_used %d, coin_used %d, gateway_payment %d", a.BalanceUsed, a.CoinValueUsed, a.CoinUsed, a.GatewayPayment))
	}
	return nil
}

func (s *scenario) coinsOnly() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	a := pm.res.Amount
	if a.CoinValueUsed <= 0 || a.CoinUsed != contract.CoinsFor(a.CoinValueUsed) {
		return s.failure(pm.ex, secCoinValue, "coin_value_used above 0 and coin_used = 2 × coin_value_used",
			"coin_used %d, coin_value_used %d", a.CoinUsed, a.CoinValueUsed)
	}
	if a.BalanceUsed != 0 || a.CoinValueUsed+a.GatewayPayment != a.Total {
		return s.reading(contract.MustReading("coins-only-no-balance"), s.failure(pm.ex, secCoinValue,
			fmt.Sprintf("balance_used 0 and coin_value_used + gateway_payment = total %d", a.Total),
			"balance_used %d, coin_value_used %d, gateway_payment %d", a.BalanceUsed, a.CoinValueUsed, a.GatewayPayment))
	}
	return nil
}

// noCoinsTaken checks a payment sent with use_coin false at document level
// (contract.CheckCoinsOnlyWhenAsked).
func (s *scenario) noCoinsTaken() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	if err := contract.CheckCoinsOnlyWhenAsked(pm.res.Amount); err != nil {
		return s.failure(pm.ex, contract.SentenceCoinsOnlyWhenAsked, "coin_used 0 and coin_value_used 0", "%v", err)
	}
	return nil
}

// walletWithinTotal checks at document level that balance and coins paid
// no more than the total (contract.CheckWalletWithinTotal).
func (s *scenario) walletWithinTotal() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	if err := contract.CheckWalletWithinTotal(pm.res.Amount); err != nil {
		return s.failure(pm.ex, contract.SentenceWalletWithinTotal, "balance_used + coin_value_used <= total", "%v", err)
	}
	return nil
}

// expectWallet reads the payer's wallet again and checks that it dropped by
// exactly what pm reported taking, graded as contract.CheckWalletAsReported
// says: by the reading wallet-debited when pm is a mixed payment that may
// not have taken its wallet part yet.
func (s *scenario) expectWallet(ctx context.Context, pm *payment) error {
	after, err := s.walletOf(ctx, pm.by)
	if err != nil {
		return err
	}
	left := pm.known.After(pm.res.Amount)
	rd, err := contract.CheckWalletAsReported(left, contract.Wallet{Balance: after.balance, Coins: after.coins})
	if err == nil {
		return nil
	}
	section := contract.SentenceWalletAsReported
	if rd.ID != "" {
		section = rd.Sentence + " Reading: " + rd.Text
	}
	return s.gradedBy(rd, s.walletFailure(pm.by, pm.ex, section,
		fmt.Sprintf("%s → %s", pm.known, left),
		"the profile then shows balance %d and coins %d (the payment above is the one checked)", after.balance, after.coins))
}

// refusalTookNothing reads the payer's wallet again after refused requests
// and checks at document level (contract.CheckRefusalTakesNothing) that it
// is the wallet before them: pm's wallet less what pm itself took, if it was
// created.
func (s *scenario) refusalTookNothing(ctx context.Context, pm *payment, section string) error {
	after, err := s.walletOf(ctx, pm.by)
	if err != nil {
		return err
	}
	before := contract.Wallet{Balance: pm.before.balance, Coins: pm.before.coins}
	if pm.res != nil {
		before.Balance -= pm.res.Amount.BalanceUsed
		before.Coins -= pm.res.Amount.CoinUsed
	}
	if err := contract.CheckRefusalTakesNothing(before, contract.Wallet{Balance: after.balance, Coins: after.coins}); err != nil {
		return s.walletFailure(pm.by, pm.ex, section, fmt.Sprintf("balance %d and coins %d", before.Balance, before.Coins), "%v", err)
	}
	return nil
}

func (s *scenario) debitedAsReported(ctx context.Context) error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	return s.expectWallet(ctx, pm)
}

func (s *scenario) debitedOnce(ctx context.Context) error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	return s.refusalTookNothing(ctx, pm, secNothingAfter409)
}

func (s *scenario) nothingTaken(ctx context.Context) error {
	pm := s.attempt
	if pm == nil {
		return fmt.Errorf("no payment was attempted before this check")
	}
	return s.refusalTookNothing(ctx, pm, secNothingAfter422)
}

func (s *scenario) remainderDue() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	a := pm.res.Amount
	want := a.Total - a.BalanceUsed - a.CoinValueUsed
	wants := fmt.Sprintf("gateway_payment = total − balance_used − coin_value_used = %d > 0", want)
	fee := int64(0)
	if pm.via != nil && pm.via.ServiceFee > 0 {
		fee = pm.via.ServiceFee
		wants += fmt.Sprintf(" (or %d, plus the service_fee.amount of payment method %d)", want+fee, pm.via.ID)
	}
	documented := contract.GatewayPaymentDocumented(a, fee)
	if !documented || want <= 0 || !pm.res.IsRequired || pm.res.PaymentAmount <= 0 {
		return s.failure(pm.ex, secRemainder+" "+secIsRequired, wants+", payment.is_required true, payment.amount > 0",
			"gateway_payment %d, is_required %v, payment.amount %d", a.GatewayPayment, pm.res.IsRequired, pm.res.PaymentAmount)
	}
	return nil
}

func (s *scenario) refusedWithAnyMessage(code int) error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	if ex.Status != code || strings.TrimSpace(env.Message) == "" {
		return s.failure(ex, secUnprocessable, fmt.Sprintf("status %d and a message", code),
			"got status %d and the message %q", ex.Status, env.Message)
	}
	return nil
}

// trxIDFor is the partner_trx_id of this run that stands for written, an
// id a generated sequence made up: the target may hold the original.
func (s *scenario) trxIDFor(written string) string {
	if s.trxIDs == nil {
		s.trxIDs = map[string]string{}
	}
	if _, ok := s.trxIDs[written]; !ok {
		s.trxIDs[written] = s.nextTrxID()
	}
	return s.trxIDs[written]
}

// payAsWritten sends the payment a generated sequence wrote. A created
// payment is the one the checks that follow are about, and what it
// reports taking leaves the payer's wallet (reportedWallet).
func (s *scenario) payAsWritten(ctx context.Context, actor string, productID, price int64, msisdn string, methodID int64, balance, coins, written string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	body := map[string]any{"product_id": productID, "msisdn": msisdn, "payment_method_id": methodID,
		"use_balance": balance == "on", "use_coin": coins == "on", "partner_trx_id": s.trxIDFor(written)}
	before := s.reportedWallet(actor)
	pm, err := s.pay(ctx, a, product{ID: productID, FinalPrice: price}, body)
	if err != nil || pm.res == nil {
		return err
	}
	pm.before = wallet{balance: before.Reported.Balance, coins: before.Reported.Coins}
	s.payment = pm
	if s.generated == nil {
		s.generated = map[string]*payment{}
	}
	s.generated[written] = pm
	s.setReported(actor, before.After(pm.res.Amount))
	return nil
}

// payAgainAsWritten sends a payment under a partner_trx_id the sequence
// used before.
func (s *scenario) payAgainAsWritten(ctx context.Context, actor, written string, productID int64, msisdn string, methodID int64, balance string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	body := map[string]any{"product_id": productID, "msisdn": msisdn, "payment_method_id": methodID,
		"use_balance": balance == "on", "partner_trx_id": s.trxIDFor(written)}
	_, err = s.pay(ctx, a, product{ID: productID}, body)
	return err
}

func (s *scenario) notRefusedAsReuse() error {
	if s.attempt == nil {
		return errors.New("no payment was sent before this check")
	}
	if s.attempt.ex.Status == http.StatusConflict {
		return s.failure(s.attempt.ex, contract.MessageRow(contract.MsgDuplicate), "no 409: the partner_trx_id is new",
			"a partner_trx_id never used before was refused as already used")
	}
	return nil
}

// takesAsSplit checks the amounts of the payment just created against the
// wallet the payer held before it (contract.CheckSplit).
func (s *scenario) takesAsSplit(ctx context.Context, actor string) error {
	pm := s.attempt
	if pm == nil || pm.res == nil || pm.by.actor != actor {
		return fmt.Errorf("no payment of %s was created before this check", actor)
	}
	fee := int64(0)
	if id, _ := pm.body["payment_method_id"].(int64); id != contract.InternalMethodID {
		ms, err := s.methods(ctx, pm.by)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if m.ID == id && contract.IsGatewayMethod(m.ID, m.Gateway, m.Type) {
				fee = m.ServiceFee
			}
		}
	}
	useBalance, _ := pm.body["use_balance"].(bool)
	useCoin, _ := pm.body["use_coin"].(bool)
	rd, err := contract.CheckSplit(pm.known, pm.res.Amount, fee, useBalance, useCoin)
	if err == nil {
		return nil
	}
	return s.gradedBy(rd, s.failure(pm.ex, contract.SentenceSplit, "balance first when asked, then coins when asked, the rest through the gateway", "%v", err))
}

// coinsCoverRest grades the coins of the payment just created, sent with
// use_coin, against the wallet the payer held before it by the reading
// generated-coins-cover-remainder (contract.CheckCoinsCoverRemainder), as
// the generated model grades them.
func (s *scenario) coinsCoverRest() error {
	pm := s.attempt
	if pm == nil || pm.res == nil {
		return errors.New("no payment was created before this check")
	}
	if useCoin, _ := pm.body["use_coin"].(bool); !useCoin {
		return errors.New("the payment checked was sent without use_coin")
	}
	rd := contract.MustReading("generated-coins-cover-remainder")
	if err := contract.CheckCoinsCoverRemainder(pm.known, pm.res.Amount); err != nil {
		return s.reading(rd, s.failure(pm.ex, rd.Sentence, "coins worth min(coins / 2, what balance left) rupiah", "%v", err))
	}
	s.applied(rd)
	return nil
}
