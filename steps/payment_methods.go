package steps

// Payment methods (section 2.4, section 4.5) and the choice of a gateway method.

import (
	"context"
	"fmt"
	"net/http"

	"github.com/partnercommerce/conformance/internal/contract"
)

func (s *scenario) registerPaymentMethods(sc stepper) {
	sc.Step(`^`+actorRE+` lists the payment methods$`, s.listMethods)
	sc.Step(`^every payment method has its documented fields$`, s.everyMethodDocumented)
	sc.Step(`^the answer is JSON, labelled Content-Type application/json$`, s.labelledJSON)
}

// labelledJSON checks the last answer's Content-Type at document level
// (contract.CheckContentType; every answer is also checked on arrival).
func (s *scenario) labelledJSON() error {
	ex := s.last
	if ex == nil {
		return fmt.Errorf("no answer was received before this check")
	}
	if err := contract.CheckContentType(ex.RespHeader.Get("Content-Type")); err != nil {
		return s.failure(ex, contract.SentenceContentType, "Content-Type application/json", "%v", err)
	}
	return nil
}

// method is a payment method of section 2.4.
type method struct {
	ID             int64
	MinimumPayment int64
	ServiceFee     int64
	// Gateway and Type are its payment_gateway and payment_type.
	Gateway, Type string
}

// methods lists the payment methods the account may use.
func (s *scenario) methods(ctx context.Context, a *account) ([]method, error) {
	ex, err := s.send(func() (*http.Response, error) { return s.api().ListPaymentMethods(ctx, a.creds()) })
	if err != nil {
		return nil, err
	}
	var body struct {
		Data []map[string]any `json:"data"`
	}
	if ex.Status != http.StatusOK {
		return nil, s.failure(ex, "§4.5: GET /client/v2/payment/methods returns the payment methods.", "status 200", "got status %d", ex.Status)
	}
	if err := decode(ex.RespBody, &body); err != nil {
		return nil, s.failure(ex, secMethod, "data, an array of payment methods", "%v", err)
	}
	var out []method
	for _, m := range body.Data {
		id, ok1 := integer(m["id"])
		min, ok2 := integer(m["minimum_payment"])
		fee, _ := lookup(m, "service_fee.amount")
		amount, ok3 := integer(fee)
		if !ok1 || !ok2 || !ok3 {
			return nil, s.failure(ex, secMethod, "integer id, minimum_payment and service_fee.amount", "method %v", m)
		}
		gateway, _ := m["payment_gateway"].(string)
		typ, _ := m["payment_type"].(string)
		out = append(out, method{ID: id, MinimumPayment: min, ServiceFee: amount, Gateway: gateway, Type: typ})
	}
	return out, nil
}

func (s *scenario) listMethods(ctx context.Context, actor string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	_, err = s.send(func() (*http.Response, error) { return s.api().ListPaymentMethods(ctx, a.creds()) })
	return err
}

func (s *scenario) everyMethodDocumented() error {
	ex := s.last
	var body struct {
		Data []map[string]any `json:"data"`
	}
	if err := decode(ex.RespBody, &body); err != nil || body.Data == nil {
		return s.failure(ex, secMethod, "data, an array of payment methods", "no data array (%v)", err)
	}
	// Every field of section 2.4 and its type is checked on every answer by
	// the response validator (openapi.yaml's PaymentMethod schema, see send).
	return nil
}

// gatewayChoice picks a gateway method and the cheapest active product whose
// final price reaches the method's minimum payment.
func (s *scenario) gatewayChoice(ctx context.Context, a *account) (method, product, error) {
	return s.gatewayChoiceAbove(ctx, a, 0)
}

// gatewayChoiceAbove is gatewayChoice for a payment whose wallet takes part
// of the price: the product is dearer than part, and the rest reaches the
// method's minimum.
func (s *scenario) gatewayChoiceAbove(ctx context.Context, a *account, part int64) (method, product, error) {
	ms, err := s.methods(ctx, a)
	if err != nil {
		return method{}, product{}, err
	}
	c, err := s.catalog(ctx, a.partner)
	if err != nil {
		return method{}, product{}, err
	}
	active := activeByPrice(c.products)
	var best method
	var bestP product
	found := false
	for _, m := range ms {
		if !contract.IsGatewayMethod(m.ID, m.Gateway, m.Type) {
			continue
		}
		for _, p := range active {
			if p.FinalPrice-part >= m.MinimumPayment && p.FinalPrice > part {
				if !found || p.FinalPrice < bestP.FinalPrice {
					best, bestP, found = m, p, true
				}
				break
			}
		}
	}
	if !found {
		// §2.4 gives minimum_payment only as "Rupiah.": a catalog whose
		// every price is below every minimum is legal, and leaves the
		// scenario no gateway payment to make.
		return method{}, product{}, s.notJudged(fmt.Sprintf(
			"no gateway payment method's minimum_payment is reached by an active product: none of the %d methods fits the %d products of the catalog of %s",
			len(ms), len(c.products), a.partner.label))
	}
	return best, bestP, nil
}
