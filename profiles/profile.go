// Package profiles reads target profiles: the YAML files that tell the
// conformance suite and the load tester what they cannot learn through the
// API (where the server is, its credentials, and optional fixtures that
// unlock tagged capabilities).
package profiles

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed reference.yaml
var referenceYAML []byte

// Profile describes one target server.
type Profile struct {
	// BaseURL is the server's base URL; --target overrides it.
	BaseURL string `yaml:"base_url"`
	// SecretKey is the partner's X-SECRET-KEY.
	SecretKey string `yaml:"secret_key"`
	// MainToken is the bearer token of the main partner account.
	MainToken string `yaml:"main_token"`

	// OperatorTeam replaces <operator_team> in the price plan message.
	OperatorTeam string `yaml:"operator_team,omitempty"`
	// InactiveSubCategory is the code of a sub category that exists but is not active.
	InactiveSubCategory string `yaml:"inactive_sub_category,omitempty"`
	// FundedCustomer is a customer of the partner holding balance and coins.
	FundedCustomer *Customer `yaml:"funded_customer,omitempty"`
	// SplitCustomer is a customer whose balance is below the price of some
	// active product and whose coins cover the rest.
	SplitCustomer *Customer `yaml:"split_customer,omitempty"`
	// MixedCustomer is a customer whose balance is below the price of some
	// active product: a payment from it leaves the rest to a gateway.
	MixedCustomer *Customer `yaml:"mixed_customer,omitempty"`
	// LoadCustomers are funded customers reserved for load tests.
	LoadCustomers []Customer `yaml:"load_customers,omitempty"`
	// SecondPartner is another partner of the same server.
	SecondPartner *Partner `yaml:"second_partner,omitempty"`
	// InactivePricePlan is a partner whose commercial configuration is not active.
	InactivePricePlan *Partner `yaml:"inactive_price_plan,omitempty"`
	// Fixtures name data for the rows that need special circumstances.
	Fixtures Fixtures `yaml:"fixtures,omitempty"`
}

// Customer is a customer account known to the profile.
type Customer struct {
	Token string `yaml:"token"`
	// MinBalance is the balance (rupiah) the account holds at least.
	MinBalance int64 `yaml:"min_balance,omitempty"`
	// MinCoins is the number of coins the account holds at least.
	MinCoins int64 `yaml:"min_coins,omitempty"`
}

// Partner is a partner's credentials.
type Partner struct {
	SecretKey string `yaml:"secret_key"`
	MainToken string `yaml:"main_token"`
}

// Fixtures name server data that the API cannot create.
type Fixtures struct {
	// BrokenProfileToken is the token of an account whose profile answers 500.
	BrokenProfileToken string `yaml:"broken_profile_token,omitempty"`
	// UnprocessableProductID is a product whose payment answers 422.
	UnprocessableProductID int64 `yaml:"unprocessable_product_id,omitempty"`
	// UnformedPayment is a transaction of the partner whose payment is not yet formed.
	UnformedPayment *Transaction `yaml:"unformed_payment,omitempty"`
}

// Transaction identifies one transaction.
type Transaction struct {
	PartnerTrxID      string `yaml:"partner_trx_id,omitempty"`
	TransactionNumber string `yaml:"transaction_number,omitempty"`
}

// Capability is an optional part of the suite, unlocked by profile keys.
// Its name is also the Gherkin tag of the scenarios that need it.
type Capability string

// The capabilities and the profile keys they need.
const (
	CapFunded              Capability = "funded"
	CapSplit               Capability = "split-payment"
	CapMixed               Capability = "mixed-payment"
	CapIsolation           Capability = "isolation"
	CapPricePlan           Capability = "price-plan"
	CapInactiveSubCategory Capability = "inactive-sub-category"
	CapProfileFault        Capability = "profile-fault"
	CapUnprocessable       Capability = "unprocessable-payment"
	CapUnformedPayment     Capability = "unformed-payment"
)

// Capabilities lists every capability in a stable order.
func Capabilities() []Capability {
	return []Capability{CapFunded, CapSplit, CapMixed, CapIsolation, CapPricePlan,
		CapInactiveSubCategory, CapProfileFault, CapUnprocessable, CapUnformedPayment}
}

// Missing returns the profile keys that capability c needs and p lacks; an
// empty result means the capability is available.
func (p *Profile) Missing(c Capability) []string {
	var keys []string
	need := func(ok bool, key string) {
		if !ok {
			keys = append(keys, key)
		}
	}
	switch c {
	case CapFunded:
		need(p.FundedCustomer != nil && p.FundedCustomer.Token != "", "funded_customer.token")
	case CapSplit:
		need(p.SplitCustomer != nil && p.SplitCustomer.Token != "", "split_customer.token")
	case CapMixed:
		need(p.MixedCustomer != nil && p.MixedCustomer.Token != "", "mixed_customer.token")
	case CapIsolation:
		need(p.SecondPartner != nil && p.SecondPartner.SecretKey != "", "second_partner.secret_key")
		need(p.SecondPartner != nil && p.SecondPartner.MainToken != "", "second_partner.main_token")
	case CapPricePlan:
		need(p.InactivePricePlan != nil && p.InactivePricePlan.SecretKey != "", "inactive_price_plan.secret_key")
		need(p.InactivePricePlan != nil && p.InactivePricePlan.MainToken != "", "inactive_price_plan.main_token")
		need(p.OperatorTeam != "", "operator_team")
	case CapInactiveSubCategory:
		need(p.InactiveSubCategory != "", "inactive_sub_category")
	case CapProfileFault:
		need(p.Fixtures.BrokenProfileToken != "", "fixtures.broken_profile_token")
	case CapUnprocessable:
		need(p.Fixtures.UnprocessableProductID != 0, "fixtures.unprocessable_product_id")
		need(p.FundedCustomer != nil && p.FundedCustomer.Token != "", "funded_customer.token")
	case CapUnformedPayment:
		u := p.Fixtures.UnformedPayment
		need(u != nil && (u.PartnerTrxID != "" || u.TransactionNumber != ""),
			"fixtures.unformed_payment.partner_trx_id")
	default:
		keys = append(keys, "unknown capability "+string(c))
	}
	return keys
}

// Validate reports the first required key that is missing or malformed.
func (p *Profile) Validate() error {
	if p.BaseURL == "" {
		return errors.New("profile: base_url is required (or pass --target)")
	}
	u, err := url.Parse(p.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("profile: base_url %q is not an http(s) URL", p.BaseURL)
	}
	if p.SecretKey == "" {
		return errors.New("profile: secret_key is required")
	}
	if p.MainToken == "" {
		return errors.New("profile: main_token is required")
	}
	for i, c := range p.LoadCustomers {
		if c.Token == "" {
			return fmt.Errorf("profile: load_customers[%d].token is required", i)
		}
	}
	return nil
}

// Parse decodes a profile. Unknown keys are an error, so that a typo in a key
// name is not silently ignored; so is a second YAML document. Parse does not
// call Validate, so that the caller can fill base_url from a flag first.
func Parse(data []byte) (*Profile, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	switch err := dec.Decode(new(yaml.Node)); {
	case err == nil:
		return nil, errors.New("profile: want one YAML document, found a second one")
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("profile: after the first YAML document: %w", err)
	}
	p.BaseURL = strings.TrimRight(p.BaseURL, "/")
	return &p, nil
}

// Load reads and parses the profile in file path, taking the values
// written ${NAME} from the process's environment (see ExpandEnv).
func Load(path string) (*Profile, error) {
	return LoadEnv(path, os.Getenv)
}

// LoadEnv reads and parses the profile in file path, taking the values
// written ${NAME} from getenv (see ExpandEnv).
func LoadEnv(path string, getenv func(string) string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	p, err := Parse(data)
	if err == nil {
		err = p.ExpandEnv(getenv)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Reference returns the profile of the embedded reference data set
// (profiles/reference.yaml), with base_url set to baseURL when it is not empty.
func Reference(baseURL string) *Profile {
	p, err := Parse(referenceYAML)
	if err != nil {
		panic("profiles: embedded reference.yaml: " + err.Error()) // a build defect, caught by tests
	}
	if baseURL != "" {
		p.BaseURL = strings.TrimRight(baseURL, "/")
	}
	return p
}

// Available returns the capabilities p unlocks, sorted.
func (p *Profile) Available() []Capability {
	var out []Capability
	for _, c := range Capabilities() {
		if len(p.Missing(c)) == 0 {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Mask shows a secret (a key, or a token with or without "Bearer ") as
// the pages and failure accounts may: its first four characters, then
// eight stars whatever its length.
func Mask(v string) string {
	prefix := ""
	if strings.HasPrefix(v, "Bearer ") {
		prefix, v = "Bearer ", strings.TrimPrefix(v, "Bearer ")
	}
	if len(v) <= 4 {
		return prefix + strings.Repeat("*", len(v))
	}
	return prefix + v[:4] + strings.Repeat("*", 8)
}

// Secret is a secret of a profile: its key ("secret_key",
// "funded_customer.token", "load_customers[0].token") and its value.
type Secret struct {
	Key, Value string
}

// Secrets lists the secrets p gives (its keys and tokens), in the order
// of profiles/example.yaml, leaving out those it does not give.
func (p *Profile) Secrets() []Secret {
	var out []Secret
	add := func(key, value string) {
		if value != "" {
			out = append(out, Secret{key, value})
		}
	}
	add("secret_key", p.SecretKey)
	add("main_token", p.MainToken)
	for _, c := range []struct {
		key string
		c   *Customer
	}{{"funded_customer", p.FundedCustomer}, {"split_customer", p.SplitCustomer}, {"mixed_customer", p.MixedCustomer}} {
		if c.c != nil {
			add(c.key+".token", c.c.Token)
		}
	}
	for i, c := range p.LoadCustomers {
		add(fmt.Sprintf("load_customers[%d].token", i), c.Token)
	}
	for _, pt := range []struct {
		key string
		p   *Partner
	}{{"second_partner", p.SecondPartner}, {"inactive_price_plan", p.InactivePricePlan}} {
		if pt.p != nil {
			add(pt.key+".secret_key", pt.p.SecretKey)
			add(pt.key+".main_token", pt.p.MainToken)
		}
	}
	add("fixtures.broken_profile_token", p.Fixtures.BrokenProfileToken)
	return out
}

// KeyOf is the key of the first secret of p whose value is v; ok is false
// when v is none of p's secrets.
func (p *Profile) KeyOf(v string) (key string, ok bool) {
	for _, s := range p.Secrets() {
		if s.Value == v {
			return s.Key, true
		}
	}
	return "", false
}
