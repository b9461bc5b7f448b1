package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
)

// endpoints a credential step can call, by the name the features use.
const endpointRE = `(the product list|the product sync|the profile|the payment methods|the payment creation|the payment status)`

// listNumber is the destination number of the product list requests that
// test credentials: a Telkomsel number in the format of section 4.1.
const listNumber = "081234567890"

func (s *scenario) registerAuth(sc stepper) {
	sc.Step(`^the partner calls `+endpointRE+` with (a wrong secret key|no token|an invalid token)$`, s.callWithProblem)
	sc.Step(`^the cashier calls `+endpointRE+` with the other partner's secret key$`, s.callWithOtherSecret)
	sc.Step(`^the partner provisions a new cashier account with a wrong secret key$`, func(ctx context.Context) error {
		s.groupEndpoint, s.authProblem = "the provisioning", "a wrong secret key"
		return s.provisionNew(ctx, s.mainPartner(), "wrong-"+s.h.runID)
	})
	sc.Step(`^the request is refused with status 401 and a message of its endpoint group$`, s.refusedByGroup)
	sc.Step(`^by the suite's reading the message is "([^"]*)"$`, func(msg string) error {
		return s.readingMessage(msg, false)
	})
	sc.Step(`^by the suite's reading the message begins "([^"]*)"$`, func(prefix string) error {
		return s.readingMessage(prefix, true)
	})
	sc.Step(`^the other partner's secret key gets no answer of the cashier's account$`, s.nothingShown)
	sc.Step(`^by the suite's reading the request is refused with status 401 and a message of its endpoint group$`, func() error {
		return s.reading(contract.MustReading("cross-partner-token-401"), s.refusedByGroup())
	})
}

// call sends a request to an endpoint with the given secret and token; the
// request is otherwise well formed and, for payment creation, payable (a
// gateway method whose minimum the product's price reaches), so its
// credentials are its only defect.
func (s *scenario) call(ctx context.Context, a *account, endpoint, secret, token string) error {
	c := s.api()
	ed := creds(secret, token)
	unknown := s.nextTrxID()
	var payBody []byte
	if endpoint == "the payment creation" {
		m, p, err := s.gatewayChoice(ctx, a)
		if err != nil {
			return err
		}
		if payBody, err = json.Marshal(s.baseBody(p, m.ID, true, true)); err != nil {
			return err
		}
	}
	s.groupEndpoint = endpoint
	_, err := s.send(func() (*http.Response, error) {
		switch endpoint {
		case "the product list":
			return c.ListProducts(ctx, &api.ListProductsParams{PhoneNumber: listNumber, SubCategory: "prabayar"}, ed)
		case "the product sync":
			return c.SyncProducts(ctx, &api.SyncProductsParams{SubCategory: "prabayar"}, ed)
		case "the profile":
			return c.GetCustomerProfile(ctx, ed)
		case "the payment methods":
			return c.ListPaymentMethods(ctx, ed)
		case "the payment creation":
			return c.CreatePaymentWithBody(ctx, "application/json", bytes.NewReader(payBody), ed)
		default:
			return c.GetPaymentStatus(ctx, &api.GetPaymentStatusParams{PartnerTrxId: &unknown}, ed)
		}
	})
	return err
}

func (s *scenario) callWithProblem(ctx context.Context, endpoint, problem string) error {
	var a *account
	if strings.HasPrefix(endpoint, "the product") {
		a = s.addMain("the main account", s.mainPartner())
	} else {
		var err error
		if a, err = s.as("the cashier"); err != nil {
			return err
		}
	}
	secret, token := a.partner.secretKey, a.token
	switch problem {
	case "a wrong secret key":
		secret = "wrong-secret-" + s.h.runID
	case "no token":
		token = ""
	default:
		token = fmt.Sprintf("invalid-token-%s-%d", s.h.runID, s.h.next())
	}
	s.authProblem = problem
	return s.call(ctx, a, endpoint, secret, token)
}

func (s *scenario) callWithOtherSecret(ctx context.Context, endpoint string) error {
	a, err := s.as("the cashier")
	if err != nil {
		return err
	}
	s.authProblem = "another partner's secret key"
	return s.call(ctx, a, endpoint, s.otherPartner().secretKey, a.token)
}

// refusedByGroup checks the document's level of a refused credential: 401
// and a message of the endpoint's row of section 7, which joins its messages
// with "or". Product sync may also answer a missing or invalid token with
// its 403 (section 5: "any other token gets 403"); 401 is then a reading.
func (s *scenario) refusedByGroup() error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	msg := env.Message
	products := strings.HasPrefix(s.groupEndpoint, "the product")
	var ok bool
	var want string
	rows := secAuthRowsAccess
	if products {
		ok = slices.Contains(contract.ProductAuthMessages, msg)
		want = "status 401 and the message " + eitherOf(contract.ProductAuthMessages)
		rows = secAuthRowsProducts
	} else {
		ok = slices.Contains(contract.AccessAuthMessages, msg) || strings.HasPrefix(msg, contract.AccessDeniedPrefix)
		want = fmt.Sprintf("status 401 and a message beginning %q, or the message %s", contract.AccessDeniedPrefix, eitherOf(contract.AccessAuthMessages))
	}
	section := secAuth + " " + rows
	if s.groupEndpoint == "the product sync" && (s.authProblem == "no token" || s.authProblem == "an invalid token") {
		if ex.Status == http.StatusForbidden && msg == contract.MsgSyncForbidden {
			return s.reading(contract.MustReading("sync-token-401"), s.failure(ex, secSyncToken, want, "got status 403 and the message %q", msg))
		}
		want += fmt.Sprintf(", or status 403 and %q", contract.MsgSyncForbidden)
		section = secSyncToken + " " + section
	}
	if ex.Status != http.StatusUnauthorized || !ok {
		return s.failure(ex, section, want, "got status %d and the message %q", ex.Status, msg)
	}
	return nil
}

// readingMessage checks the exact message (or its start) the suite reads a
// row of section 7 to give for the credential problem at hand.
func (s *scenario) readingMessage(msg string, prefix bool) error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	ok := env.Message == msg || (prefix && strings.HasPrefix(env.Message, msg))
	if !ok {
		how := "the message"
		if prefix {
			how = "a message beginning"
		}
		rows := secAuthRowsAccess
		if strings.HasPrefix(s.groupEndpoint, "the product") {
			rows = secAuthRowsProducts
		}
		return s.reading(contract.MustReading("auth-message-per-condition"), s.failure(ex, rows,
			fmt.Sprintf("%s %q for %s", how, msg, s.authProblem), "got status %d and the message %q", ex.Status, env.Message))
	}
	s.h.coverage.asserted(ex, msg)
	return nil
}

// nothingShown checks that a token sent with another partner's secret key
// is not served: no 2xx answer (section 7: "Wrong secret key or token").
func (s *scenario) nothingShown() error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	if ex.Status/100 == 2 {
		return s.failure(ex, secTokenOtherPartner, "no 2xx answer: the secret key belongs to another partner than the token's account",
			"got status %d and the message %q", ex.Status, env.Message)
	}
	return nil
}

// eitherOf says a list of messages in words: "A", "B" or "C".
func eitherOf(msgs []string) string {
	q := make([]string, len(msgs))
	for i, m := range msgs {
		q[i] = strconv.Quote(m)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
