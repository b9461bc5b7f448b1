package loadtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/jsonscan"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// The requests of a run, built by the generated client's api.New*Request
// builders: the paths and query encoding are openapi.yaml's, written
// nowhere else in the load tester. A call keeps the method, URL and body,
// so that one built request can be sent many times (an idempotency wave).

// built turns a request from a generated builder into a call of op.
func built(op, auth string, req *http.Request, err error, body []byte) call {
	if err != nil {
		return call{op: op, auth: auth, err: err}
	}
	return call{op: op, method: req.Method, url: req.URL.String(), auth: auth, body: body}
}

// payment is the body of a create-payment request the planner makes: the
// fields of api.CreatePaymentRequest it sets, as plain values.
type payment struct {
	msisdn, partnerTrxID string
	methodID, productID  int64
	useBalance, useCoin  bool
}

// request is p as the generated request type.
func (p payment) request() api.CreatePaymentRequest {
	r := api.CreatePaymentRequest{Msisdn: p.msisdn, PartnerTrxId: p.partnerTrxID, PaymentMethodId: &p.methodID, ProductId: p.productID}
	if p.useBalance {
		r.UseBalance = &p.useBalance
	}
	if p.useCoin {
		r.UseCoin = &p.useCoin
	}
	return r
}

// marshal writes p as json.Marshal writes p.request(), without its
// reflection and allocations when no string needs escaping (always, for
// the planner's ids and numbers), and through it otherwise.
func (p payment) marshal() ([]byte, error) {
	if !jsonscan.Plain(p.msisdn) || !jsonscan.Plain(p.partnerTrxID) {
		return json.Marshal(p.request())
	}
	b := make([]byte, 0, 128+len(p.msisdn)+len(p.partnerTrxID))
	b = append(b, `{"msisdn":"`...)
	b = append(b, p.msisdn...)
	b = append(b, `","partner_trx_id":"`...)
	b = append(b, p.partnerTrxID...)
	b = append(b, `","payment_method_id":`...)
	b = strconv.AppendInt(b, p.methodID, 10)
	b = append(b, `,"product_id":`...)
	b = strconv.AppendInt(b, p.productID, 10)
	if p.useBalance {
		b = append(b, `,"use_balance":true`...)
	}
	if p.useCoin {
		b = append(b, `,"use_coin":true`...)
	}
	return append(b, '}'), nil
}

// createPayment is POST /client/v2/payment with body.
func (cl *client) createPayment(auth string, body payment) call {
	b, err := body.marshal()
	if err != nil {
		return call{op: record.OpCreate, auth: auth, err: err}
	}
	if cl.createURL == "" {
		req, err := api.NewCreatePaymentRequestWithBody(cl.base, "application/json", nil)
		return built(record.OpCreate, auth, req, err, b)
	}
	// The path has no parameter: the URL is built once per client.
	return call{op: record.OpCreate, method: http.MethodPost, url: cl.createURL, auth: auth, body: b}
}

// paymentStatus is GET /client/v2/payment/status?partner_trx_id=id.
func (cl *client) paymentStatus(auth, id string) call {
	req, err := api.NewGetPaymentStatusRequest(cl.base, &api.GetPaymentStatusParams{PartnerTrxId: &id})
	return built(record.OpStatus, auth, req, err, nil)
}

// listProducts is GET /client/v2/product/list.
func (cl *client) listProducts(auth, phone, subCategory string) call {
	req, err := api.NewListProductsRequest(cl.base, &api.ListProductsParams{PhoneNumber: phone, SubCategory: subCategory})
	return built(record.OpList, auth, req, err, nil)
}

// syncProducts is GET /client/v2/product/sync with the main account's token.
func (cl *client) syncProducts(subCategory string, page, pageSize int) call {
	req, err := api.NewSyncProductsRequest(cl.base, &api.SyncProductsParams{SubCategory: subCategory, Page: &page, PageSize: &pageSize})
	return built(record.OpSync, cl.mainAuth, req, err, nil)
}

// paymentMethods is GET /client/v2/payment/methods.
func (cl *client) paymentMethods(auth string) call {
	req, err := api.NewListPaymentMethodsRequest(cl.base)
	return built(record.OpMethods, auth, req, err, nil)
}

// customerProfile is GET /client/v2/customer/profile.
func (cl *client) customerProfile(auth string) call {
	req, err := api.NewGetCustomerProfileRequest(cl.base)
	return built(record.OpProfile, auth, req, err, nil)
}

// provisionAccount is POST /client/v2/customer/provision_account (the
// secret key only, no bearer token).
func (cl *client) provisionAccount(body api.ProvisionAccountRequest) call {
	b, err := json.Marshal(body)
	if err != nil {
		return call{op: record.OpProvision, err: err}
	}
	req, err := api.NewProvisionAccountRequestWithBody(cl.base, "application/json", bytes.NewReader(b))
	return built(record.OpProvision, "", req, err, b)
}
