package httpapi

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/reference"
)

func TestBearerToken(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Bearer abc":   "abc",
		"bearer abc":   "abc",
		"BEARER  abc ": "abc",
		"Bearer ":      "",
		"Bearer":       "",
		"Basic abc":    "",
		"abc":          "",
		"":             "",
	} {
		assert.Equal(t, want, bearerToken(in), "header %q", in)
	}
}

func TestStatusTable(t *testing.T) {
	t.Parallel()
	cases := map[*reference.Error]int{
		reference.ErrSubCategoryNotFound: 200, reference.ErrSubCategoryInactive: 200,
		reference.ErrListQueryEmpty: 400, reference.ErrProvisionIncomplete: 400, reference.ErrMethodUnavailable: 400,
		reference.ErrSecretKeyInvalid: 401, reference.ErrTokenMissing: 401, reference.ErrTokenInvalid: 401,
		reference.ErrSyncMainOnly: 403, reference.ErrTrxNotFound: 404, reference.ErrPaymentNotFormed: 404,
		reference.ErrTrxIDUsed:        409,
		reference.ErrProductDisrupted: 422, reference.ErrInsufficientFunds: 422, reference.ErrBelowMinimumPayment: 422, reference.ErrProductUnavailable: 422,
		reference.ErrProfileUnavailable: 500, reference.ErrInternal: 500,
	}
	for e, want := range cases {
		assert.Equal(t, want, statusOf(e.Kind), e.Message)
	}
	for e, want := range map[*wireError]int{errMalformedRequest: 400, errNoRoute: 404, errMethodNotAllowed: 405, errBodyTooLarge: 413} {
		assert.Equal(t, want, e.status, e.message)
	}
	assert.True(t, errors.Is(reference.ErrTrxIDUsed, reference.ErrTrxIDUsed))
}
