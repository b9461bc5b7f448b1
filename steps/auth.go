package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/partnercommerce/conformance/api"
)

// endpoints a credential step can call, by the name the features use.
const endpointRE = `(the product list|the product sync|the profile|the payment methods|the payment creation|the payment status)`

func (s *scenario) registerAuth(sc stepper) {
	sc.Step(`^the partner calls `+endpointRE+` with (a wrong secret key|no token|an invalid token)$`, s.callWithProblem)
	sc.Step(`^the cashier calls `+endpointRE+` with the other partner's secret key$`, s.callWithOtherSecret)
	sc.Step(`^the partner provisions a new cashier account with a wrong secret key$`, func(ctx context.Context) error {
		return s.provisionNew(ctx, s.mainPartner(), "wrong-"+s.h.runID)
	})
	sc.Step(`^the request is refused with status 401 and a message of its endpoint group$`, s.refusedByGroup)
}

// call sends a well-formed request to an endpoint with the given secret and token.
func (s *scenario) call(ctx context.Context, endpoint, secret, token string) error {
	c := s.api()
	ed := creds(secret, token)
	unknown := s.nextTrxID()
	_, err := s.send(func() (*http.Response, error) {
		switch endpoint {
		case "the product list":
			return c.ListProducts(ctx, &api.ListProductsParams{PhoneNumber: msisdn, SubCategory: "prabayar"}, ed)
		case "the product sync":
			return c.SyncProducts(ctx, &api.SyncProductsParams{SubCategory: "prabayar"}, ed)
		case "the profile":
			return c.GetCustomerProfile(ctx, ed)
		case "the payment methods":
			return c.ListPaymentMethods(ctx, ed)
		case "the payment creation":
			raw, _ := json.Marshal(map[string]any{"product_id": 1, "msisdn": msisdn, "payment_method_id": 0,
				"use_balance": true, "use_coin": true, "partner_trx_id": unknown})
			return c.CreatePaymentWithBody(ctx, "application/json", bytes.NewReader(raw), ed)
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
	return s.call(ctx, endpoint, secret, token)
}

func (s *scenario) callWithOtherSecret(ctx context.Context, endpoint string) error {
	a, err := s.as("the cashier")
	if err != nil {
		return err
	}
	s.groupEndpoint = endpoint
	return s.call(ctx, endpoint, s.otherPartner().secretKey, a.token)
}

func (s *scenario) refusedByGroup() error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	msg := env.Message
	var ok bool
	var want string
	if strings.HasPrefix(s.groupEndpoint, "the product") {
		ok = slices.Contains(productAuthMessages, msg)
		want = fmt.Sprintf("status 401 and one of %q", productAuthMessages)
	} else {
		ok = slices.Contains(accessAuthMessages, msg) || strings.HasPrefix(msg, accessDeniedPrefix)
		want = fmt.Sprintf("status 401 and a message beginning %q or one of %q", accessDeniedPrefix, accessAuthMessages)
	}
	if ex.Status != http.StatusUnauthorized || !ok {
		return s.failure(ex, secTokenOtherPartner, want,
			"got status %d and the message %q", ex.Status, msg)
	}
	return nil
}
