package reference

// Group is an endpoint group of section 7 of the API document. The groups
// word their authentication errors differently.
type Group int

// The endpoint groups (the tags of openapi.yaml).
const (
	GroupProducts Group = iota + 1
	GroupCustomers
	GroupPayments
)

// Caller is the authenticated partner and, when a token was required, the
// account that owns the token.
type Caller struct {
	PartnerID int64
	AccountID int64 // 0 when the route needs only the secret key
	Main      bool
}

// Access is what an operation requires of its caller.
type Access struct {
	// Group words the authentication errors (section 7).
	Group Group
	// Token requires a bearer token of an account of the partner.
	Token bool
	// MainOnly requires the token of the main partner account.
	MainOnly bool
}

// customerAuthErrors are the section 7 authentication messages of the
// customer and payment endpoints.
var customerAuthErrors = map[Kind]*Error{
	KindSecretKeyInvalid: newError(KindSecretKeyInvalid, "Akses ditolak. Secret Key tidak valid."),
	KindTokenMissing:     newError(KindTokenMissing, "Token wajib diisi."),
	KindTokenInvalid:     newError(KindTokenInvalid, "Token tidak valid."),
}

// authErrors are the section 7 authentication messages of each endpoint
// group; each is errors.Is its message-less sentinel.
var authErrors = map[Group]map[Kind]*Error{
	GroupProducts: {
		KindSecretKeyInvalid: newError(KindSecretKeyInvalid, "Secret Key tidak valid."),
		KindTokenMissing:     newError(KindTokenMissing, "Token wajib diisi."),
		KindTokenInvalid:     newError(KindTokenInvalid, "Token tidak valid atau sudah kedaluwarsa."),
	},
	GroupCustomers: customerAuthErrors,
	GroupPayments:  customerAuthErrors,
}

// authError words an authentication error for group g. An unknown group
// gets the customer and payment wording.
func authError(g Group, sentinel *Error) *Error {
	if m, ok := authErrors[g]; ok {
		return m[sentinel.Kind]
	}
	return customerAuthErrors[sentinel.Kind]
}

// Authenticate resolves the caller from the secret key and the bearer token.
// The secret key is checked first; a token is valid only with its own
// partner's key. Errors are worded for need.Group.
func (s *Store) Authenticate(secretKey, token string, need Access) (Caller, error) {
	p := s.cat.bySecretKey[secretKey]
	if secretKey == "" || p == nil {
		return Caller{}, authError(need.Group, ErrSecretKeyInvalid)
	}
	if !need.Token {
		return Caller{PartnerID: p.ID}, nil
	}
	if token == "" {
		return Caller{}, authError(need.Group, ErrTokenMissing)
	}
	s.mu.Lock()
	a := s.byToken[token]
	var c Caller
	if a != nil {
		c = Caller{PartnerID: a.partner, AccountID: a.id, Main: a.main}
	}
	s.mu.Unlock()
	if a == nil {
		return Caller{}, authError(need.Group, ErrTokenInvalid)
	}
	if c.PartnerID != p.ID && s.policy.tokenBoundToPartner {
		return Caller{}, authError(need.Group, ErrTokenInvalid)
	}
	if need.MainOnly && !c.Main && s.policy.mainOnlySync {
		return Caller{}, ErrSyncMainOnly
	}
	return c, nil
}
