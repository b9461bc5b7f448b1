package reference

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"time"

	"gopkg.in/yaml.v3"
)

//go:embed dataset/default.yaml
var defaultDatasetYAML []byte

// Dataset is a decoded reference data set: the catalog, the partners and
// their accounts, and the transactions present at start.
type Dataset struct {
	// OperatorTeam replaces <operator_team> in the price plan message.
	OperatorTeam   string            `yaml:"operator_team"`
	PricePlans     []PricePlan       `yaml:"price_plans"`
	Partners       []Partner         `yaml:"partners"`
	Operators      []Operator        `yaml:"operators"`
	SubCategories  []SubCategory     `yaml:"sub_categories"`
	PaymentMethods []PaymentMethod   `yaml:"payment_methods"`
	Accounts       []AccountSeed     `yaml:"accounts"`
	Products       []Product         `yaml:"products"`
	Transactions   []TransactionSeed `yaml:"transactions"`
}

// AccountSeed is an account as the data set describes it.
type AccountSeed struct {
	ID                int64   `yaml:"id"`
	Partner           int64   `yaml:"partner"`
	Name              string  `yaml:"name"`
	Email             string  `yaml:"email"`
	Phone             string  `yaml:"phone"`
	DeviceID          string  `yaml:"device_id"`
	Token             string  `yaml:"token"`
	Main              bool    `yaml:"main"`
	Level             int64   `yaml:"level"`
	ReferralCode      string  `yaml:"referral_code"`
	IdentityNumber    *string `yaml:"identity_number"`
	RegisteredAt      string  `yaml:"registered_at"`
	Balance           int64   `yaml:"balance"`
	Coins             int64   `yaml:"coins"`
	WalletUnavailable bool    `yaml:"wallet_unavailable"`
}

// TransactionSeed is a transaction present at start. Only transactions whose
// payment was never formed are supported: they exist for the 404 row
// "Transaksi payment belum terbentuk.".
type TransactionSeed struct {
	ID                int64  `yaml:"id"`
	Partner           int64  `yaml:"partner"`
	Account           int64  `yaml:"account"`
	PartnerTrxID      string `yaml:"partner_trx_id"`
	TransactionNumber string `yaml:"transaction_number"`
	Product           int64  `yaml:"product"`
	Msisdn            string `yaml:"msisdn"`
	PaymentFormed     bool   `yaml:"payment_formed"`
	CreatedAt         string `yaml:"created_at"`
}

// DefaultDataset returns the embedded data set (reference/dataset/default.yaml),
// the one profiles/reference.yaml describes.
func DefaultDataset() (*Dataset, error) { return parseDataset(defaultDatasetYAML) }

// LoadDataset reads and parses a data set file.
func LoadDataset(path string) (*Dataset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	ds, err := parseDataset(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

// parseDataset decodes a YAML data set and validates it: unknown keys,
// duplicate ids, tokens, secret keys, phone numbers and emails, and
// references to things that do not exist are reported with the offending
// entry.
func parseDataset(data []byte) (*Dataset, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var ds Dataset
	if err := dec.Decode(&ds); err != nil {
		return nil, fmt.Errorf("dataset: decode: %w", err)
	}
	if err := ds.validate(); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return &ds, nil
}

// dateTimeLayout is the contract's `YYYY-MM-DD HH:MM:SS`.
const dateTimeLayout = "2006-01-02 15:04:05"

// wib is Western Indonesia Time, the zone of every time the server shows.
var wib = time.FixedZone("WIB", 7*60*60)

// FormatTime is the contract's `YYYY-MM-DD HH:MM:SS` of t, in WIB.
func FormatTime(t time.Time) string { return t.In(wib).Format(dateTimeLayout) }

func parseDateTime(s string) (time.Time, error) {
	return time.ParseInLocation(dateTimeLayout, s, wib)
}
