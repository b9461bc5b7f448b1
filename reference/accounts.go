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
}

// The account levels (docs/reference-choices.md).
const (
	levelCustomer = 1
	levelMain     = 9
)

// defaultDeviceID is the device_id of an account provisioned without one.
const defaultDeviceID = "client-api-pos"

// Caller is the authenticated partner and, when a token was required, the
// account that owns the token.
type Caller struct {
	PartnerID int64
	AccountID int64 // 0 when the route needs only the secret key
	Main      bool
}

// Access is what a route requires of its caller.
type Access struct {
	// Token requires a bearer token of an account of the partner.
	Token bool
	// MainOnly requires the token of the main partner account.
	MainOnly bool
}

// Authenticate resolves the caller from the secret key and the bearer token.
// The secret key is checked first; a token is valid only with its own
// partner's key.
func (s *Store) Authenticate(secretKey, token string, need Access) (Caller, error) {
	p := s.cat.bySecretKey[secretKey]
	if secretKey == "" || p == nil {
		return Caller{}, ErrSecretKeyInvalid
	}
	if !need.Token {
		return Caller{PartnerID: p.ID}, nil
	}
	if token == "" {
		return Caller{}, ErrTokenMissing
	}
	s.mu.Lock()
	a := s.byToken[token]
	var c Caller
	if a != nil {
		c = Caller{PartnerID: a.partner, AccountID: a.id, Main: a.main}
	}
	s.mu.Unlock()
	if a == nil {
		return Caller{}, ErrTokenInvalid
	}
	if c.PartnerID != p.ID && !s.faults.has(FaultTokenAcrossPartners) { // FAULT: token-across-partners
		return Caller{}, ErrTokenInvalid
	}
	if need.MainOnly && !c.Main && !s.faults.has(FaultSyncOpenToAnyToken) { // FAULT: sync-open-to-any-token
		return Caller{}, ErrSyncMainOnly
	}
	return c, nil
}

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
	name := strings.TrimSpace(in.Name)
	phone := strings.TrimSpace(in.PhoneNumber)
	email := strings.TrimSpace(in.Email)
	if name == "" || phone == "" || email == "" || !validPhoneNumber(phone) || !emailPattern.MatchString(email) {
		return ProvisionResult{}, ErrProvisionIncomplete
	}
	device := defaultDeviceID
	if in.DeviceID != nil && strings.TrimSpace(*in.DeviceID) != "" {
		device = strings.TrimSpace(*in.DeviceID)
	}
	now := s.now()

	s.mu.Lock()
	defer s.mu.Unlock()
	existing := s.byPhone[partnerKey{c.PartnerID, phone}]
	owner := s.byEmail[partnerKey{c.PartnerID, lowerEmail(email)}]
	if owner != nil && owner != existing && !s.faults.has(FaultDuplicateEmailAccepted) { // FAULT: duplicate-email-accepted
		return ProvisionResult{}, ErrEmailTaken
	}
	if existing != nil {
		if owner0 := s.byEmail[partnerKey{c.PartnerID, lowerEmail(existing.email)}]; owner0 == existing {
			delete(s.byEmail, partnerKey{c.PartnerID, lowerEmail(existing.email)})
		}
		existing.name, existing.email, existing.deviceID = name, email, device
		if s.faults.has(FaultProvisionNewIDOnSync) { // FAULT: provision-new-id-on-sync
			delete(s.accounts, existing.id)
			s.nextAccountID++
			existing.id = s.nextAccountID
		}
		s.index(existing)
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
	return ProvisionResult{CustomerID: a.id, Token: a.token, Created: true}, nil
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
	defer s.mu.Unlock()
	a := s.accounts[c.AccountID]
	if a == nil {
		return Profile{}, ErrTokenInvalid
	}
	if a.walletUnavailable {
		return Profile{}, ErrProfileUnavailable
	}
	p := Profile{
		ID: a.id, Name: a.name, Email: a.email, PhoneNumber: a.phone, Level: a.level,
		ReferralCode: a.referralCode, RegisteredAt: a.registeredAt,
		Balance: a.balance, Coins: a.coins, CoinValue: a.coins / s.policy.coinsPerRupiah,
	}
	if a.identityNumber != nil {
		id := *a.identityNumber
		p.IdentityNumber = &id
	}
	return p, nil
}
