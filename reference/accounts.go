package reference

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// account is a customer or main partner account with its wallet. It lives
// in the Store and is guarded by Store.mu.
type account struct {
	id                int64
	partner           int64
	name              string
	email             string
	phone             string
	deviceID          string
	token             string
	main              bool
	level             int64
	referralCode      string
	identityNumber    *string
	registeredAt      time.Time
	balance           int64
	coins             int64
	walletUnavailable bool
	// paymentsSinceProfile counts payments since the last profile read
	// (read only by FaultStaleWalletTakesCoins).
	paymentsSinceProfile int
}

// The account levels (docs/reference-choices.md).
const (
	levelCustomer = 1
	levelMain     = 9
)

// defaultDeviceID is the device_id of an account provisioned without one.
const defaultDeviceID = "client-api-pos"

var (
	emailPattern = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s.]+$`)
)

func lowerEmail(e string) string { return strings.ToLower(e) }

// ProvisionInput is the provision_account request. DeviceID nil or blank
// means the default.
type ProvisionInput struct {
	Name        string
	PhoneNumber string
	Email       string
	DeviceID    *string
}

// Check applies the provisioning field rules: name, phone_number and email
// present and not blank (white space and invisible characters count as
// blank), an Indonesian phone number, and no control character in name,
// email or device_id (the store also requires a valid email). A request the
// server could not read as these fields is an empty one.
func (in ProvisionInput) Check() error {
	name := strings.TrimSpace(in.Name)
	phone := strings.TrimSpace(in.PhoneNumber)
	email := strings.TrimSpace(in.Email)
	if blank(name) || blank(email) || hasControl(name) || hasControl(email) || !validPhoneNumber(phone) {
		return ErrProvisionIncomplete
	}
	if in.DeviceID != nil && hasControl(*in.DeviceID) {
		return ErrProvisionIncomplete
	}
	return nil
}

// ProvisionResult is the provisioned account: its id and token, and whether
// it was created (201) or synchronized (200).
type ProvisionResult struct {
	CustomerID int64
	Token      string
	Created    bool
}

// Provision creates a customer account under the caller's partner, or
// synchronizes (updates) the account that already has the phone number.
func (s *Store) Provision(c Caller, in ProvisionInput) (ProvisionResult, error) {
	if err := in.Check(); err != nil {
		return ProvisionResult{}, err
	}
	name := strings.TrimSpace(in.Name)
	phone := strings.TrimSpace(in.PhoneNumber)
	email := strings.TrimSpace(in.Email)
	if !s.policy.validEmail(email) {
		return ProvisionResult{}, ErrProvisionIncomplete
	}
	device := defaultDeviceID
	if in.DeviceID != nil && strings.TrimSpace(*in.DeviceID) != "" {
		device = strings.TrimSpace(*in.DeviceID)
	}
	now := s.now()

	s.mu.Lock()
	res, err := s.provision(c, name, phone, email, device, now)
	if derr := s.durable(s.release()); derr != nil {
		return ProvisionResult{}, derr
	}
	return res, err
}

// provision is Provision under s.mu, with the fields trimmed and checked.
func (s *Store) provision(c Caller, name, phone, email, device string, now time.Time) (ProvisionResult, error) {
	existing := s.byPhone[partnerKey{c.PartnerID, phone}]
	owner := s.byEmail[partnerKey{c.PartnerID, lowerEmail(email)}]
	if owner != nil && owner != existing && s.policy.uniqueEmail {
		return ProvisionResult{}, errEmailTaken
	}
	if !s.policy.accountsPerPartner && existing == nil && s.usedByOtherPartner(c.PartnerID, phone, email) {
		return ProvisionResult{}, errEmailTaken
	}
	if existing != nil {
		if owner0 := s.byEmail[partnerKey{c.PartnerID, lowerEmail(existing.email)}]; owner0 == existing {
			delete(s.byEmail, partnerKey{c.PartnerID, lowerEmail(existing.email)})
		}
		existing.name, existing.email, existing.deviceID = name, email, device
		if s.policy.walletResetOnSync {
			existing.balance, existing.coins = 0, 0
		}
		if !s.policy.keepIDOnSync {
			delete(s.accounts, existing.id)
			s.nextAccountID++
			existing.id = s.nextAccountID
		}
		s.index(existing)
		if s.journal != nil {
			s.journal.Append(s.accountRecord(existing))
		}
		return ProvisionResult{CustomerID: existing.id, Token: existing.token}, nil
	}
	token := newToken()
	s.nextAccountID++
	a := &account{
		id: s.nextAccountID, partner: c.PartnerID, name: name, email: email, phone: phone,
		deviceID: device, token: token, level: levelCustomer,
		referralCode: fmt.Sprintf("REF%06d", s.nextAccountID), registeredAt: now,
	}
	s.index(a)
	if s.journal != nil {
		s.journal.Append(s.accountRecord(a))
	}
	return ProvisionResult{CustomerID: a.id, Token: a.token, Created: true}, nil
}

// usedByOtherPartner reports whether an account of another partner than
// partner has the phone number or the email (only FaultAccountsAcrossPartners
// asks). The caller holds s.mu.
func (s *Store) usedByOtherPartner(partner int64, phone, email string) bool {
	for _, a := range s.accounts {
		if a.partner != partner && (a.phone == phone || lowerEmail(a.email) == lowerEmail(email)) {
			return true
		}
	}
	return false
}

// newToken returns a fresh random account token. crypto/rand.Read never
// fails (it crashes the program instead).
func newToken() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return "tok-" + hex.EncodeToString(b[:])
}

// Profile is an account's profile and wallet.
type Profile struct {
	ID             int64
	Name           string
	Email          string
	PhoneNumber    string
	IdentityNumber *string
	Level          int64
	ReferralCode   string
	RegisteredAt   time.Time
	Balance        int64
	Coins          int64
	// CoinValue is the rupiah value of the coins: coins / 2.
	CoinValue int64
}

// Profile returns the profile of the caller's account.
func (s *Store) Profile(c Caller) (Profile, error) {
	s.mu.Lock()
	p, err := s.profile(c)
	if derr := s.durable(s.release()); derr != nil {
		return Profile{}, derr
	}
	return p, err
}

// profile is Profile under s.mu.
func (s *Store) profile(c Caller) (Profile, error) {
	a := s.accounts[c.AccountID]
	if a == nil {
		return Profile{}, authError(GroupCustomers, ErrTokenInvalid)
	}
	if a.walletUnavailable {
		return Profile{}, ErrProfileUnavailable
	}
	a.paymentsSinceProfile = 0
	balance, coins := a.balance, a.coins
	if s.policy.profileCacheFor > 0 {
		now := s.now()
		if w, ok := s.stale[a.id]; ok && now.Sub(w.at) < s.policy.profileCacheFor {
			balance, coins = w.balance, w.coins
		} else {
			if s.stale == nil {
				s.stale = map[int64]staleWallet{}
			}
			s.stale[a.id] = staleWallet{at: now, balance: balance, coins: coins}
		}
	}
	p := Profile{
		ID: a.id, Name: a.name, Email: a.email, PhoneNumber: a.phone, Level: a.level,
		ReferralCode: a.referralCode, RegisteredAt: a.registeredAt,
		Balance: balance, Coins: coins, CoinValue: coins / s.policy.split.coinsPerRupiah,
	}
	if a.identityNumber != nil {
		id := *a.identityNumber
		p.IdentityNumber = &id
	}
	return p, nil
}
