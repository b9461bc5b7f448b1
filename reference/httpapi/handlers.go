package httpapi

import (
	"context"
	"time"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/reference"
)

// The fixed texts of the contract and docs/reference-choices.md.
const (
	msgOK              = "OK"
	msgProvisioned     = "Akun berhasil disinkronisasi."
	msgPaymentCreated  = "Pembayaran berhasil diproses."
	noteCoinConversion = "2 koin = 1 rupiah."
	noteGatewayPayment = "gateway_payment terisi bila ada sisa pembayaran yang harus dibayar melalui payment gateway."
)

// handlers implements the generated strict server: each method reads the
// request object, calls one Store method and maps the result. Errors are
// returned and written by errorWriter.responseError.
type handlers struct {
	store *reference.Store
}

var _ api.StrictServerInterface = (*handlers)(nil)

// ListProducts serves GET /client/v2/product/list.
func (h *handlers) ListProducts(ctx context.Context, req api.ListProductsRequestObject) (api.ListProductsResponseObject, error) {
	list, err := h.store.ListProducts(callerFrom(ctx), reference.ListQuery{PhoneNumber: req.Params.PhoneNumber, SubCategory: req.Params.SubCategory})
	if err != nil {
		return nil, err
	}
	return api.ListProducts200JSONResponse{Status: true, Message: msgOK, Data: productList{Products: toAPIProducts(list)}}, nil
}

// productList is the data of a successful product list.
type productList struct {
	Products []api.Product `json:"products"`
}

// SyncProducts serves GET /client/v2/product/sync.
func (h *handlers) SyncProducts(ctx context.Context, req api.SyncProductsRequestObject) (api.SyncProductsResponseObject, error) {
	page, err := h.store.SyncProducts(callerFrom(ctx), reference.SyncQuery{SubCategory: req.Params.SubCategory, Page: req.Params.Page, PageSize: req.Params.PageSize})
	if err != nil {
		return nil, err
	}
	products := toAPIProducts(page.Products)
	pagination := api.Pagination{Total: page.Total, Page: page.Page, PerPage: page.PerPage, TotalPages: page.TotalPages}
	return api.SyncProducts200JSONResponse{Status: true, Message: msgOK, Data: api.ProductSyncData{Products: products}, Pagination: pagination}, nil
}

// GetCustomerProfile serves GET /client/v2/customer/profile.
func (h *handlers) GetCustomerProfile(ctx context.Context, _ api.GetCustomerProfileRequestObject) (api.GetCustomerProfileResponseObject, error) {
	p, err := h.store.Profile(callerFrom(ctx))
	if err != nil {
		return nil, err
	}
	var resp api.GetCustomerProfile200JSONResponse
	resp.Status, resp.Message = true, msgOK
	resp.Data.Customer = api.Customer{
		Id: p.ID, Name: p.Name, Email: p.Email, PhoneNumber: p.PhoneNumber,
		IdentityNumber: p.IdentityNumber, Level: p.Level, ReferralCode: p.ReferralCode,
		RegisteredAt: formatTime(p.RegisteredAt),
	}
	resp.Data.Balance.Available = p.Balance
	resp.Data.Coin.Note = noteCoinConversion
	resp.Data.Coin.Available = p.Coins
	resp.Data.Coin.AvailableValue = p.CoinValue
	return resp, nil
}

// ProvisionAccount serves POST /client/v2/customer/provision_account.
func (h *handlers) ProvisionAccount(ctx context.Context, req api.ProvisionAccountRequestObject) (api.ProvisionAccountResponseObject, error) {
	var in reference.ProvisionInput
	if req.Body != nil {
		in = reference.ProvisionInput{Name: req.Body.Name, PhoneNumber: req.Body.PhoneNumber, Email: req.Body.Email, DeviceID: req.Body.DeviceId}
	}
	res, err := h.store.Provision(callerFrom(ctx), in)
	if err != nil {
		return nil, err
	}
	var env api.ProvisionAccountEnvelope
	env.Status, env.Message = true, msgProvisioned
	env.Data.CustomerId, env.Data.Token = res.CustomerID, res.Token
	if res.Created {
		return api.ProvisionAccount201JSONResponse(env), nil
	}
	return api.ProvisionAccount200JSONResponse(env), nil
}

// ListPaymentMethods serves GET /client/v2/payment/methods.
func (h *handlers) ListPaymentMethods(ctx context.Context, _ api.ListPaymentMethodsRequestObject) (api.ListPaymentMethodsResponseObject, error) {
	methods := h.store.PaymentMethods(callerFrom(ctx))
	out := make([]api.PaymentMethod, len(methods))
	for i, m := range methods {
		out[i] = api.PaymentMethod{
			Id: m.ID, Code: m.Code, Name: m.Name, Group: m.Group, PaymentGateway: m.Gateway,
			PaymentType: m.Type, Image: m.Image, MinimumPayment: m.MinimumPayment,
		}
		out[i].ServiceFee.Type = m.FeeType
		out[i].ServiceFee.Amount = m.FeeAmount
	}
	return api.ListPaymentMethods200JSONResponse{Status: true, Message: msgOK, Data: out}, nil
}

// CreatePayment serves POST /client/v2/payment. The common body takes a
// faster road to createPayment (paymentfast.go); both end here.
func (h *handlers) CreatePayment(ctx context.Context, req api.CreatePaymentRequestObject) (api.CreatePaymentResponseObject, error) {
	if req.Body == nil {
		return nil, errMalformedRequest
	}
	resp, err := h.createPayment(callerFrom(ctx), req.Body)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// createPayment calls the domain for one create-payment body and maps the
// transaction to the 200 answer.
func (h *handlers) createPayment(caller reference.Caller, b *api.CreatePaymentRequest) (api.CreatePayment200JSONResponse, error) {
	// The request is this call's own (decoded for it), and the domain
	// copies what it keeps: its pointers are passed on as they are.
	in := reference.CreatePaymentInput{
		ProductID: b.ProductId, Msisdn: b.Msisdn, PartnerTrxID: b.PartnerTrxId, ShiftCode: b.ShiftCode,
		PaymentMethodID: b.PaymentMethodId, PromotionID: b.PromotionId,
		UseBalance: b.UseBalance != nil && *b.UseBalance, UseCoin: b.UseCoin != nil && *b.UseCoin,
	}
	if b.Parts != nil {
		in.Parts = *b.Parts
	}
	var resp api.CreatePayment200JSONResponse
	t, err := h.store.CreatePayment(caller, in)
	if err != nil {
		return resp, err
	}
	resp.Status, resp.Message = true, msgPaymentCreated
	d := &resp.Data
	d.Transaction.Id = t.ID
	d.Transaction.TransactionNumber = t.Number
	d.Transaction.Status = api.TransactionStatus(t.Status)
	d.Transaction.PaymentStatus = api.PaymentStatus(t.PaymentStatus)
	d.Transaction.Amount = toAPIAmount(t.Amount)
	d.Transaction.PartnerTrxId = t.PartnerTrxID
	d.PaymentMethod.Id = t.Method.ID
	d.PaymentMethod.Code = t.Method.Code
	d.PaymentMethod.Name = t.Method.Name
	d.PaymentMethod.Gateway = t.Method.Gateway
	d.PaymentMethod.Type = t.Method.Type
	d.Payment.IsRequired = t.PaymentRequired
	d.Payment.Token = optional(t.GatewayToken)
	d.Payment.RedirectUrl = optional(t.RedirectURL)
	d.Payment.Amount = t.PaymentAmount
	d.DeveloperNotes.CoinConversion = noteCoinConversion
	d.DeveloperNotes.GatewayPayment = noteGatewayPayment
	return resp, nil
}

// GetPaymentStatus serves GET /client/v2/payment/status.
func (h *handlers) GetPaymentStatus(ctx context.Context, req api.GetPaymentStatusRequestObject) (api.GetPaymentStatusResponseObject, error) {
	t, err := h.store.PaymentStatus(callerFrom(ctx), reference.StatusQuery{PartnerTrxID: req.Params.PartnerTrxId, TransactionNumber: req.Params.TransactionNumber})
	if err != nil {
		return nil, err
	}
	var resp api.GetPaymentStatus200JSONResponse
	resp.Status, resp.Message = true, msgOK
	d := &resp.Data
	d.PartnerTrxId = t.PartnerTrxID
	d.TransactionNumber = t.Number
	d.Product.Id = t.Product.ID
	d.Product.Code = t.Product.Code
	d.Product.Name = t.Product.Name
	d.Product.Description = t.Product.Description
	d.Product.Image.OperatorLogo = optional(t.Operator.Logo)
	d.Product.Image.ProductIcon = optional(t.Product.Icon)
	d.Product.Image.ProductBanner = optional(t.Product.Banner)
	d.Operator = api.Operator{Id: t.Operator.ID, Name: t.Operator.Name, Logo: t.Operator.Logo}
	d.PaymentStatus = api.PaymentStatus(t.PaymentStatus)
	d.TransactionStatus = api.TransactionStatus(t.Status)
	d.SerialNumber = optional(t.SerialNumber)
	d.Amount = toAPIAmount(t.Amount)
	d.PaymentMethod.Gateway = t.Method.Gateway
	d.PaymentMethod.Type = t.Method.Type
	d.CreatedAt = formatTime(t.CreatedAt)
	d.UpdatedAt = formatTime(t.UpdatedAt)
	return resp, nil
}

func toAPIProducts(list []reference.PricedProduct) []api.Product {
	out := make([]api.Product, len(list))
	for i, p := range list {
		out[i] = api.Product{
			Id: p.Product.ID, Code: p.Product.Code, Name: p.Product.Name,
			Description: p.Product.Description, Status: api.ProductStatus(p.Status),
			Operator: api.Operator{Id: p.Operator.ID, Name: p.Operator.Name, Logo: p.Operator.Logo},
		}
		out[i].Pricing.BasePrice = p.Product.BasePrice
		out[i].Pricing.FinalPrice = p.FinalPrice
		if promo := p.Product.Promotion; promo != nil {
			m := map[string]any{"id": promo.ID, "name": promo.Name, "discount": promo.Discount}
			out[i].Promotion = &m
		}
	}
	return out
}

func toAPIAmount(a reference.Amount) api.Amount {
	return api.Amount{
		Total: a.Total, BalanceUsed: a.BalanceUsed, CoinUsed: a.CoinUsed,
		CoinValueUsed: a.CoinValueUsed, GatewayPayment: a.GatewayPayment,
	}
}

// formatTime is the contract's `YYYY-MM-DD HH:MM:SS`, in WIB.
func formatTime(t time.Time) string { return reference.FormatTime(t) }

// optional is nil for "" (JSON null), else a pointer to s.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	p := new(string) // allocated only here: &s would move s to the heap on every call
	*p = s
	return p
}
