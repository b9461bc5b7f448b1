package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/partnercommerce/conformance/internal/contract"
)

// provisioning is a provisioning request and its answer.
type provisioning struct {
	partner partner
	body    map[string]any
	ex      *exchange
	id      int64
	token   string
}

func (s *scenario) registerCustomers(sc stepper) {
	sc.Step(`^the partner provisions a new cashier account$`, func(ctx context.Context) error {
		return s.provisionNew(ctx, s.mainPartner(), s.mainPartner().secretKey)
	})
	sc.Step(`^the partner provisioned a new cashier account$`, s.provisionedNew)
	sc.Step(`^the answer carries a customer id and a token$`, s.carriesIDAndToken)
	sc.Step(`^the partner provisions the same phone number again$`, s.provisionSameAgain)
	sc.Step(`^the same customer id is returned$`, s.sameCustomerID)
	sc.Step(`^the partner provisions another phone number with the same email address$`, s.provisionSameEmail)
	sc.Step(`^the partner provisions an account with the (name|phone number|email) (missing|empty)$`, s.provisionIncomplete)
	sc.Step(`^the partner provisions an account with the email "([^"]*)"$`, s.provisionWithEmail)
	sc.Step(`^no account is created$`, s.noAccount)
	sc.Step(`^the other partner provisions an account with the same phone number and email$`, s.provisionSameUnderOther)
	sc.Step(`^the other partner's account is another account, with its own token$`, s.anotherAccount)
	sc.Step(`^`+actorRE+` reads its profile$`, s.readProfile)
	// The steps of a generated sequence (generative/model.go).
	sc.Step(`^the partner (?:provisions|provisioned) a new cashier account, (cashier \d+)$`, s.provisionCashier)
	sc.Step(`^the partner provisions the phone number of `+actorRE+` again with the same name and email$`, s.provisionAgain)
	sc.Step(`^the provisioning of (cashier \d+) comes back with status (\d+) and the message "([^"]*)"$`, s.provisioningAnswered)
	sc.Step(`^`+actorRE+`'s wallet holds what the payments reported leave$`, s.walletAsReported)
	sc.Step(`^the profile shows the name, email address and phone number that were provided$`, s.profileShowsProvided)
	sc.Step(`^the balance is a whole number of rupiah$`, s.balanceWhole)
	sc.Step(`^the coin value is half the number of coins, rounded down$`, s.coinValueHalf)
	sc.Step(`^the account whose wallet cannot be loaded$`, func() error {
		s.addAccount(&account{actor: "the account with an unavailable wallet", partner: s.mainPartner(), token: s.h.profile.Fixtures.BrokenProfileToken})
		return nil
	})
	// The actors the payment scenarios act as.
	sc.Step(`^the funded customer of the partner$`, func(ctx context.Context) error {
		return s.sharedCustomer(ctx, "the funded customer", s.h.profile.FundedCustomer.Token)
	})
	sc.Step(`^the split-payment customer of the partner$`, func(ctx context.Context) error {
		return s.sharedCustomer(ctx, "the split-payment customer", s.h.profile.SplitCustomer.Token)
	})
	sc.Step(`^the mixed-payment customer of the partner$`, func(ctx context.Context) error {
		return s.sharedCustomer(ctx, "the mixed-payment customer", s.h.profile.MixedCustomer.Token)
	})
	sc.Step(`^a cashier of the other partner$`, func(ctx context.Context) error {
		return s.cashierOf(ctx, "the other partner's cashier", s.otherPartner())
	})
	sc.Step(`^a cashier of the partner whose price plan is not active$`, func(ctx context.Context) error {
		return s.cashierOf(ctx, "the unconfigured partner's cashier", s.unconfiguredPartner())
	})
}

// newIdentity returns a name, phone number and email unique to this run
// (see phoneNumber and emailAddress).
func (s *scenario) newIdentity() (name, phone, email string) {
	n := s.h.next()
	name = fmt.Sprintf("Kasir Uji %s-%d", s.h.runID, n)
	return name, phoneNumber(s.h.runID, n), emailAddress(s.h.runID, n)
}

// provision sends one provisioning request with the given body.
func (s *scenario) provision(ctx context.Context, p partner, secret string, body map[string]any) (*provisioning, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	pv := &provisioning{partner: p, body: body}
	pv.ex, err = s.send(func() (*http.Response, error) {
		return s.api().ProvisionAccountWithBody(ctx, "application/json", bytes.NewReader(raw), creds(secret, ""))
	})
	if err != nil {
		return pv, err
	}
	var out struct {
		Data *struct {
			CustomerID json.Number `json:"customer_id"`
			Token      string      `json:"token"`
		} `json:"data"`
	}
	if pv.ex.Status/100 == 2 {
		if err := decode(pv.ex.RespBody, &out); err != nil || out.Data == nil {
			return pv, s.failure(pv.ex, secProvisionBody, "data.customer_id and data.token", "the body lacks data (%v)", err)
		}
		id, err := out.Data.CustomerID.Int64()
		if s.gathering && out.Data.Token != "" {
			// An account is all a precondition needs: its token.
			err = nil
		}
		if err != nil || out.Data.Token == "" {
			return pv, s.failure(pv.ex, secProvisionBody, "an integer data.customer_id and a non-empty data.token",
				"customer_id %q, token %q", out.Data.CustomerID, out.Data.Token)
		}
		pv.id, pv.token = id, out.Data.Token
	}
	return pv, nil
}

func (s *scenario) provisionNew(ctx context.Context, p partner, secret string) error {
	name, phone, email := s.newIdentity()
	pv, err := s.provision(ctx, p, secret, map[string]any{"name": name, "phone_number": phone, "email": email})
	s.provisioned = pv
	return err
}

// cashierOf provisions a new account under partner p for the actor.
func (s *scenario) cashierOf(ctx context.Context, actor string, p partner) error {
	return s.gather(func() error { return s.provisionFor(ctx, actor, p) })
}

// provisionFor provisions the account of cashierOf.
func (s *scenario) provisionFor(ctx context.Context, actor string, p partner) error {
	name, phone, email := s.newIdentity()
	pv, err := s.provision(ctx, p, p.secretKey, map[string]any{"name": name, "phone_number": phone, "email": email})
	if err != nil {
		return err
	}
	if pv.token == "" {
		// Section 1: endpoints of a partner whose price plan is not active
		// "may" answer with the price plan message; the scenario then acts
		// as that partner's main account.
		if env, err := s.envelope(pv.ex); err == nil && p.mainToken != "" &&
			env.Message == strings.ReplaceAll(contract.MsgPricePlan, "<operator_team>", s.h.profile.OperatorTeam) {
			s.addAccount(&account{actor: actor, partner: p, token: p.mainToken})
			return nil
		}
		return s.failure(pv.ex, "§4.4 (provisioning is how the suite makes its own accounts)", "status 201 or 200 with a token",
			"could not provision an account for %s", actor)
	}
	s.provisioned = pv
	s.addAccount(&account{actor: actor, partner: p, token: pv.token, id: pv.id, name: name, phone: phone, email: email})
	return nil
}

func (s *scenario) aCashier(ctx context.Context) error {
	return s.cashierOf(ctx, "the cashier", s.mainPartner())
}

func (s *scenario) provisionedNew(ctx context.Context) error {
	return s.cashierOf(ctx, "the new cashier", s.mainPartner())
}

func (s *scenario) carriesIDAndToken() error {
	if s.provisioned == nil {
		return fmt.Errorf("nothing was provisioned before this check")
	}
	if s.provisioned.token == "" {
		return s.failure(s.provisioned.ex, secProvisionBody, "data.customer_id and data.token", "no token came back")
	}
	return nil
}

func (s *scenario) provisionSameAgain(ctx context.Context) error {
	first := s.provisioned
	if first == nil {
		return fmt.Errorf("nothing was provisioned before this step")
	}
	pv, err := s.provision(ctx, first.partner, first.partner.secretKey, first.body)
	if err != nil {
		return err
	}
	s.addAccount(&account{actor: "the synchronized account", id: pv.id, token: pv.token})
	return nil
}

func (s *scenario) sameCustomerID() error {
	first := s.accounts["the new cashier"]
	if s.reprovisioned != nil {
		first = s.reprovisioned
	}
	again := s.accounts["the synchronized account"]
	if first == nil || again == nil {
		return fmt.Errorf("two provisionings of the same phone number are needed before this check")
	}
	if err := contract.CheckSameCustomer(first.id, again.id); err != nil {
		return s.failure(s.last, secProvision, fmt.Sprintf("the same customer_id %d", first.id), "%v", err)
	}
	return nil
}

func (s *scenario) provisionSameEmail(ctx context.Context) error {
	first := s.accounts["the new cashier"]
	if first == nil {
		return fmt.Errorf("an account must be provisioned before this step")
	}
	name, phone, _ := s.newIdentity()
	_, err := s.provision(ctx, s.mainPartner(), s.mainPartner().secretKey, map[string]any{"name": name, "phone_number": phone, "email": first.email})
	return err
}

// provisionWithEmail provisions a new account whose only defect may be its
// email address.
func (s *scenario) provisionWithEmail(ctx context.Context, email string) error {
	name, phone, _ := s.newIdentity()
	pv, err := s.provision(ctx, s.mainPartner(), s.mainPartner().secretKey, map[string]any{"name": name, "phone_number": phone, "email": email})
	s.provisioned = pv
	return err
}

// noAccount checks that the last provisioning created nothing: section 4.4
// requires a valid email, and gives no message for one that is not, so only
// "no 2xx answer and no token" is asserted.
func (s *scenario) noAccount() error {
	pv := s.provisioned
	if pv == nil {
		return fmt.Errorf("nothing was provisioned before this check")
	}
	if pv.ex.Status/100 == 2 || pv.token != "" {
		return s.failure(pv.ex, secEmailValid, "no 2xx answer and no token", "got status %d and a token %q", pv.ex.Status, pv.token)
	}
	return nil
}

// provisionSameUnderOther provisions, under the other partner, the phone
// number and email of the account the partner provisioned.
func (s *scenario) provisionSameUnderOther(ctx context.Context) error {
	first := s.accounts["the new cashier"]
	if first == nil {
		return fmt.Errorf("an account must be provisioned before this step")
	}
	o := s.otherPartner()
	pv, err := s.provision(ctx, o, o.secretKey, map[string]any{"name": first.name, "phone_number": first.phone, "email": first.email})
	s.provisioned = pv
	return err
}

// anotherAccount checks that the other partner's account is not the
// partner's: its own token (section 5: the token is the one for that
// customer account), and a profile read with it.
func (s *scenario) anotherAccount() error {
	first := s.accounts["the new cashier"]
	pv := s.provisioned
	if first == nil || pv == nil {
		return fmt.Errorf("two provisionings are needed before this check")
	}
	if pv.token == "" || pv.token == first.token {
		return s.failure(pv.ex, secPerPartner, "a token of its own, not the partner's account's", "token %q (the partner's account has %q)", pv.token, first.token)
	}
	return nil
}

func (s *scenario) provisionIncomplete(ctx context.Context, field, how string) error {
	name, phone, email := s.newIdentity()
	body := map[string]any{"name": name, "phone_number": phone, "email": email}
	key := map[string]string{"name": "name", "phone number": "phone_number", "email": "email"}[field]
	if how == "missing" {
		delete(body, key)
	} else {
		body[key] = ""
	}
	_, err := s.provision(ctx, s.mainPartner(), s.mainPartner().secretKey, body)
	if how == "missing" {
		s.restsOn = "required-field-missing-is-empty"
	}
	return err
}

// profileBody is the profile as sent, numbers kept exact.
type profileBody struct {
	Data *struct {
		Customer map[string]any `json:"customer"`
		Balance  map[string]any `json:"balance"`
		Coin     map[string]any `json:"coin"`
	} `json:"data"`
}

func (s *scenario) readProfile(ctx context.Context, actor string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	_, err = s.send(func() (*http.Response, error) { return s.api().GetCustomerProfile(ctx, a.creds()) })
	return err
}

// okProfile requires the last answer to be a 200 OK profile.
func (s *scenario) okProfile() (profileBody, error) {
	if s.last == nil {
		return profileBody{}, fmt.Errorf("no profile was read before this check")
	}
	return s.decodeProfile(s.last)
}

// decodeProfile requires a profile answer of 200 OK with data and decodes it.
func (s *scenario) decodeProfile(ex *exchange) (profileBody, error) {
	var pb profileBody
	env, err := s.envelope(ex)
	if err != nil {
		return pb, err
	}
	if ex.Status != http.StatusOK || env.Message != contract.MsgOK {
		if skip := s.systemFault(ex, env); skip != nil {
			return pb, skip
		}
		return pb, s.failure(ex, secProfileLoaded, "status 200 and the message \"OK\"", "got status %d and the message %q", ex.Status, env.Message)
	}
	if err := decode(ex.RespBody, &pb); err != nil || pb.Data == nil {
		return pb, s.failure(ex, secProfile, "data.customer, data.balance and data.coin", "the body lacks data (%v)", err)
	}
	return pb, nil
}

func (s *scenario) profileShowsProvided() error {
	pb, err := s.okProfile()
	if err != nil {
		return err
	}
	a := s.accounts["the new cashier"]
	for _, f := range []struct{ key, want string }{{"name", a.name}, {"email", a.email}} {
		if got := pb.Data.Customer[f.key]; got != f.want {
			return s.failure(s.last, secTokenProfile, fmt.Sprintf("customer.%s %q, as provisioned", f.key, f.want), "customer.%s is %v", f.key, got)
		}
	}
	// §2.3 says only "Indonesian format": 0812-3456, +62812 3456 and 628123456
	// are the same number.
	got, _ := pb.Data.Customer["phone_number"].(string)
	if nationalPhone(got) != nationalPhone(a.phone) {
		return s.failure(s.last, secTokenProfile+" "+secPhoneFormat,
			fmt.Sprintf("customer.phone_number %q, as provisioned (compared in national form %q)", a.phone, nationalPhone(a.phone)),
			"customer.phone_number is %v (national form %q)", pb.Data.Customer["phone_number"], nationalPhone(got))
	}
	if id, _ := pb.Data.Customer["id"].(json.Number); id.String() != fmt.Sprint(a.id) {
		return s.reading(contract.MustReading("profile-customer-id"), s.failure(s.last, secTokenProfile,
			fmt.Sprintf("customer.id %d, the customer_id provisioning returned", a.id), "customer.id is %v", pb.Data.Customer["id"]))
	}
	return nil
}

// nationalPhone writes an Indonesian phone number in its national form:
// spaces and dashes removed, a leading +62 or 62 replaced by 0.
func nationalPhone(n string) string {
	n = strings.NewReplacer(" ", "", "-", "").Replace(n)
	for _, cc := range []string{"+62", "62"} {
		if rest, ok := strings.CutPrefix(n, cc); ok {
			return "0" + rest
		}
	}
	return n
}

func (s *scenario) balanceWhole() error {
	pb, err := s.okProfile()
	if err != nil {
		return err
	}
	if _, ok := integer(pb.Data.Balance["available"]); !ok {
		return s.failure(s.last, secProfile, "balance.available a whole number of rupiah", "balance.available is %v", pb.Data.Balance["available"])
	}
	return nil
}

func (s *scenario) coinValueHalf() error {
	pb, err := s.okProfile()
	if err != nil {
		return err
	}
	coins, ok1 := integer(pb.Data.Coin["available"])
	value, ok2 := integer(pb.Data.Coin["available_value"])
	if !ok1 || !ok2 {
		return s.failure(s.last, secProfile, "integer coin.available and coin.available_value", "coin is %v", pb.Data.Coin)
	}
	if err := contract.CheckCoinValue(coins, value); err != nil {
		return s.failure(s.last, secCoinAvailValue, fmt.Sprintf("available_value %d for %d coins (coins / 2)", contract.CoinValue(coins), coins), "%v", err)
	}
	var rounding error
	if err := contract.CheckCoinValueRoundsDown(coins, value); err != nil {
		rounding = s.failure(s.last, secCoinRounding,
			fmt.Sprintf("available_value %d for %d coins", contract.CoinValue(coins), coins), "%v", err)
	}
	return s.reading(contract.MustReading("coin-value-rounds-down"), rounding)
}

// walletOf reads the balance and coins of an account from its profile.
func (s *scenario) walletOf(ctx context.Context, a *account) (wallet, error) {
	ex, err := s.send(func() (*http.Response, error) { return s.api().GetCustomerProfile(ctx, a.creds()) })
	if err != nil {
		return wallet{}, err
	}
	return s.walletIn(ex, a)
}

// walletIn reads the balance and coins of a profile answer of account a,
// and the account's identity when the scenario did not provision it.
func (s *scenario) walletIn(ex *exchange, a *account) (wallet, error) {
	pb, err := s.decodeProfile(ex)
	if err != nil {
		return wallet{}, err
	}
	b, ok1 := integer(pb.Data.Balance["available"])
	c, ok2 := integer(pb.Data.Coin["available"])
	if !ok1 || !ok2 {
		return wallet{}, s.failure(ex, secProfile, "integer balance.available and coin.available", "balance %v, coin %v", pb.Data.Balance, pb.Data.Coin)
	}
	if a.phone == "" {
		a.name, _ = pb.Data.Customer["name"].(string)
		a.email, _ = pb.Data.Customer["email"].(string)
		a.phone, _ = pb.Data.Customer["phone_number"].(string)
		a.id, _ = integer(pb.Data.Customer["id"])
	}
	return wallet{balance: b, coins: c}, nil
}

// provisionCashier provisions a new account of the partner for actor, a
// cashier of a generated sequence, and reads its wallet, which only the
// payments it reports change (walletAsReported). An answer other than 201,
// or a profile the new token does not read, is left to the next check.
func (s *scenario) provisionCashier(ctx context.Context, actor string) error {
	name, phone, email := s.newIdentity()
	p := s.mainPartner()
	pv, err := s.provision(ctx, p, p.secretKey, map[string]any{"name": name, "phone_number": phone, "email": email})
	s.provisioned = pv
	if err != nil || pv.ex.Status != http.StatusCreated {
		return err
	}
	a := s.addAccount(&account{actor: actor, partner: p, token: pv.token, id: pv.id, name: name, phone: phone, email: email})
	ex, err := s.send(func() (*http.Response, error) { return s.api().GetCustomerProfile(ctx, a.creds()) })
	if err != nil || ex.Status != http.StatusOK {
		return err
	}
	w, err := s.walletIn(ex, a)
	if err != nil {
		return err
	}
	s.setReported(actor, contract.Exactly(contract.Wallet{Balance: w.balance, Coins: w.coins}))
	return nil
}

// provisioningAnswered checks the answer to the last provisioning, which
// is the cashier's (the step that provisions it also reads its profile).
func (s *scenario) provisioningAnswered(_ string, code int, msg string) error {
	if s.provisioned == nil || s.provisioned.ex == nil {
		return errors.New("the partner provisioned no account before this check")
	}
	ex := s.provisioned.ex
	env, err := s.envelope(ex)
	if err != nil {
		return err
	}
	if err := contract.CheckAnswer(ex.Status, env.Message, code, msg); err != nil {
		return s.failure(ex, contract.MessageRow(msg), fmt.Sprintf("status %d and the message %q", code, msg), "%v", err)
	}
	return nil
}

// provisionAgain provisions the phone number of actor again, with its name
// and email; a token that comes back is the account's from now on.
func (s *scenario) provisionAgain(ctx context.Context, actor string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	if a.phone == "" {
		return fmt.Errorf("the scenario does not know the phone number of %s", actor)
	}
	// Its wallet read just before: a change of it by the next read is the
	// provisioning's (walletAsReported).
	readBefore := s.last != nil && s.last.Operation == contract.OpGetCustomerProfile && s.last.ReqHeader.Get("Authorization") == "Bearer "+a.token
	pv, err := s.provision(ctx, a.partner, a.partner.secretKey, map[string]any{"name": a.name, "phone_number": a.phone, "email": a.email})
	s.provisioned = pv
	if err != nil {
		return err
	}
	s.reprovisioned = a
	if readBefore {
		s.synced = a
	}
	s.addAccount(&account{actor: "the synchronized account", partner: a.partner, id: pv.id, token: pv.token})
	if pv.ex.Status == http.StatusOK && pv.token != "" {
		a.token = pv.token
	}
	return nil
}

// reportedWallet is the wallet of actor as the payments reported since it
// was read leave it.
func (s *scenario) reportedWallet(actor string) contract.WalletRange {
	if r, ok := s.reported[actor]; ok {
		return r
	}
	w := s.wallets[actor]
	return contract.Exactly(contract.Wallet{Balance: w.balance, Coins: w.coins})
}

// setReported notes the wallet of actor as the payments leave it.
func (s *scenario) setReported(actor string, r contract.WalletRange) {
	if s.reported == nil {
		s.reported = map[string]contract.WalletRange{}
	}
	s.reported[actor] = r
}

// walletAsReported checks the profile just read against the wallet the
// payments of the scenario leave (§2.7), graded as
// contract.CheckWalletAsReported says: a wallet within what mixed payments
// may not have taken yet by the reading wallet-debited, any other
// departure as a failure.
func (s *scenario) walletAsReported(actor string) error {
	pb, err := s.okProfile()
	if err != nil {
		return err
	}
	b, _ := integer(pb.Data.Balance["available"])
	c, _ := integer(pb.Data.Coin["available"])
	reported, got := s.reportedWallet(actor), contract.Wallet{Balance: b, Coins: c}
	check := contract.CheckWalletAsReported
	if a := s.accounts[actor]; a != nil && a == s.synced {
		// Nothing but the provisioning since the wallet was last read.
		check, s.synced = contract.CheckSyncKeepsWallet, nil
	}
	rd, err := check(reported, got)
	s.setReported(actor, reported.Shown(got))
	if err == nil {
		return nil
	}
	a, aerr := s.as(actor)
	if aerr != nil {
		return aerr
	}
	return s.gradedBy(rd, s.walletFailure(a, s.last, contract.SentenceWalletAsReported, "the wallet the payments reported leave", "%s: %v", actor, err))
}

// sharedCustomer takes a profile's customer for the whole scenario (its lock
// is released after the scenario) and reads its wallet.
func (s *scenario) sharedCustomer(ctx context.Context, actor, token string) error {
	s.unlock = append(s.unlock, s.h.lock(token))
	a := s.addAccount(&account{actor: actor, partner: s.mainPartner(), token: token})
	var w wallet
	err := s.gather(func() (err error) {
		w, err = s.walletOf(ctx, a)
		return err
	})
	if err != nil {
		return err
	}
	if s.wallets == nil {
		s.wallets = map[string]wallet{}
	}
	s.wallets[actor] = w
	return nil
}
