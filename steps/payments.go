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

// A scenario pays as the document's clients do: the steps that send a
// payment (a product, a method, balance and coins, a partner_trx_id, again
// or edited) and keep what came back. The checks of what came back are in
// paymentchecks.go, of the wallet after it in paymentwallet.go, and the
// payments a generated sequence wrote in paymentreplay.go.

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
