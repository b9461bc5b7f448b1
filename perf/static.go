package perf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// The payment every measurement sends: a product of the embedded data set,
// paid from the balance of a load-test customer, whose wallet (a thousand
// billion rupiah) does not run dry within any bounded run.
const (
	paymentPath   = "/client/v2/payment"
	paymentSecret = "sk-nusantara-7f3a9c"
	paymentToken  = "tok-nusantara-load-1"
)

// paymentBody is the create-payment request with id as its partner_trx_id.
func paymentBody(id string) string {
	return `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"use_coin":true,"partner_trx_id":"` + id + `"}`
}

// referenceAnswer is the body the embedded reference answers to one
// payment: the static handler's body, so that both write the same bytes.
func referenceAnswer() ([]byte, error) {
	h, err := referenceHandler()
	if err != nil {
		return nil, err
	}
	req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, paymentPath, strings.NewReader(paymentBody("perf-static-0000000001")))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SECRET-KEY", paymentSecret)
	req.Header.Set("Authorization", "Bearer "+paymentToken)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("the reference answered the perf payment with %d: %s", rec.Code, rec.Body)
	}
	return bytes.Clone(rec.Body.Bytes()), nil
}

// referenceHandler is the embedded reference, in process, its logs discarded.
func referenceHandler() (http.Handler, error) {
	ds, err := reference.DefaultDataset()
	if err != nil {
		return nil, err
	}
	st, err := reference.NewStore(ds)
	if err != nil {
		return nil, err
	}
	return httpapi.NewServer(slog.New(slog.DiscardHandler), st), nil
}

// StaticHandler is the baseline of the server ratio: a net/http handler that
// reads the request body and writes a fixed create-payment answer of the
// reference, as JSON.
func StaticHandler() (http.Handler, error) {
	body, err := referenceAnswer()
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}), nil
}
