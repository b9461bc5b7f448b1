package reference

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/partnercommerce/conformance/api"
)

// statusOf is the one table from domain error kinds to HTTP status codes.
func statusOf(k Kind) int {
	switch k {
	case KindNotice:
		return http.StatusOK
	case KindInvalid:
		return http.StatusBadRequest
	case KindSecretKeyInvalid, KindTokenMissing, KindTokenInvalid:
		return http.StatusUnauthorized
	case KindForbidden:
		return http.StatusForbidden
	case KindNotFound, KindNoRoute:
		return http.StatusNotFound
	case KindMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case KindConflict:
		return http.StatusConflict
	case KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case KindUnprocessable:
		return http.StatusUnprocessableEntity
	case KindUnavailable, KindInternal:
		return http.StatusInternalServerError
	}
	return http.StatusInternalServerError
}

// authMessage words an authentication error for an endpoint group (section
// 7): the product endpoints and the customer and payment endpoints use
// different sentences.
func authMessage(g group, k Kind, productTokenFault bool) string {
	if g == groupProducts {
		switch k {
		case KindSecretKeyInvalid:
			return "Secret Key tidak valid."
		case KindTokenMissing:
			return "Token wajib diisi."
		default:
			if productTokenFault { // FAULT: product-token-message
				return "Token tidak valid."
			}
			return "Token tidak valid atau sudah kedaluwarsa."
		}
	}
	switch k {
	case KindSecretKeyInvalid:
		return "Akses ditolak. Secret Key tidak valid."
	case KindTokenMissing:
		return "Token wajib diisi."
	default:
		return "Token tidak valid."
	}
}

// errorWriter writes every failure as {"status": false, "message": ...}.
type errorWriter struct {
	logger *slog.Logger
	faults faultSet
}

// write answers err. An error that is not a domain *Error is logged and
// answered as the system fault.
func (e *errorWriter) write(w http.ResponseWriter, r *http.Request, err error) {
	var de *Error
	if !errors.As(err, &de) {
		e.logger.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "error", err)
		de = ErrInternal
	}
	msg := de.Message
	switch de.Kind {
	case KindSecretKeyInvalid, KindTokenMissing, KindTokenInvalid:
		msg = authMessage(routeFrom(r.Context()).group, de.Kind, e.faults.has(FaultProductTokenMessage))
	}
	status := statusOf(de.Kind)
	if e.faults.has(FaultErrorsAsText) { // FAULT: errors-as-text
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(msg + "\n"))
		return
	}
	body, mErr := json.Marshal(api.ErrorBody{Status: false, Message: msg})
	if mErr != nil { // cannot happen for a struct of a bool and a string
		body = []byte(`{"status":false,"message":"Terjadi kesalahan sistem."}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// requestError answers a request body the strict server could not decode.
func (e *errorWriter) requestError(w http.ResponseWriter, r *http.Request, err error) {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		e.write(w, r, ErrBodyTooLarge)
	case routeFrom(r.Context()).op == opProvisionAccount:
		e.write(w, r, ErrProvisionIncomplete)
	default:
		e.write(w, r, ErrMalformedRequest)
	}
}

// responseError answers an error returned by a strict handler (a domain
// error) or met while writing a response.
func (e *errorWriter) responseError(w http.ResponseWriter, r *http.Request, err error) {
	e.write(w, r, err)
}

// paramError answers a query parameter the generated wrapper could not bind.
func (e *errorWriter) paramError(w http.ResponseWriter, r *http.Request, err error) {
	op := routeFrom(r.Context()).op
	var required *api.RequiredParamError
	var format *api.InvalidParamFormatError
	switch {
	case errors.As(err, &required) && op == opListProducts:
		e.write(w, r, ErrListQueryEmpty)
	case errors.As(err, &required) && op == opSyncProducts && required.ParamName == "sub_category":
		e.write(w, r, ErrSubCategoryRequired)
	case errors.As(err, &required):
		e.write(w, r, errInvalidParam(required.ParamName))
	case errors.As(err, &format):
		e.write(w, r, errInvalidParam(format.ParamName))
	default:
		e.write(w, r, ErrMalformedRequest)
	}
}
