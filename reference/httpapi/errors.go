package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/reference"
)

// wireError is an answer of the HTTP layer itself, for a request that never
// reaches the domain (docs/reference-choices.md).
type wireError struct {
	status  int
	message string
}

func (e *wireError) Error() string { return e.message }

// The HTTP-level answers.
var (
	errNoRoute          = &wireError{http.StatusNotFound, "Endpoint tidak ditemukan."}
	errMethodNotAllowed = &wireError{http.StatusMethodNotAllowed, "Metode HTTP tidak didukung."}
	errBodyTooLarge     = &wireError{http.StatusRequestEntityTooLarge, "Ukuran permintaan terlalu besar."}
	errMalformedRequest = &wireError{http.StatusBadRequest, "Format permintaan tidak valid."}
)

// errInvalidParam is the answer to a query parameter of the wrong type.
func errInvalidParam(name string) *wireError {
	return &wireError{http.StatusBadRequest, "Parameter tidak valid: " + name + "."}
}

// statusOf is the one table from domain error kinds to HTTP status codes.
func statusOf(k reference.Kind) int {
	switch k {
	case reference.KindNotice:
		return http.StatusOK
	case reference.KindInvalid:
		return http.StatusBadRequest
	case reference.KindSecretKeyInvalid, reference.KindTokenMissing, reference.KindTokenInvalid:
		return http.StatusUnauthorized
	case reference.KindForbidden:
		return http.StatusForbidden
	case reference.KindNotFound:
		return http.StatusNotFound
	case reference.KindConflict:
		return http.StatusConflict
	case reference.KindUnprocessable:
		return http.StatusUnprocessableEntity
	case reference.KindUnavailable, reference.KindInternal:
		return http.StatusInternalServerError
	}
	return http.StatusInternalServerError
}

// errorWriter writes every failure as {"status": false, "message": ...}.
type errorWriter struct {
	logger *slog.Logger
}

// write answers err: a wire error with its own status, a domain *Error by
// its kind. Any other error, or a domain error without a message, is logged
// and answered as the system fault.
func (e *errorWriter) write(w http.ResponseWriter, r *http.Request, err error) {
	var status int
	var msg string
	var we *wireError
	var de *reference.Error
	switch {
	case errors.As(err, &we):
		status, msg = we.status, we.message
	case errors.As(err, &de) && de.Message != "":
		status, msg = statusOf(de.Kind), de.Message
	default:
		e.logger.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "error", err)
		status, msg = statusOf(reference.KindInternal), reference.ErrInternal.Message
	}
	writeError(w, status, msg)
}

// writeError writes the contract's error body.
func writeError(w http.ResponseWriter, status int, msg string) {
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
// A provisioning body that cannot be read as its fields is an empty one,
// which the domain answers.
func (e *errorWriter) requestError(w http.ResponseWriter, r *http.Request, err error) {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		e.write(w, r, errBodyTooLarge)
	case routeFrom(r.Context()).op == opProvisionAccount:
		e.write(w, r, orMalformed(reference.ProvisionInput{}.Check()))
	default:
		e.write(w, r, errMalformedRequest)
	}
}

// responseError answers an error returned by a strict handler (a domain
// error) or met while writing a response. Once the response has started, a
// failed write (typically the write timeout of a client that stopped
// reading) cannot be answered any more: it is logged once at debug level,
// and no second status is written.
func (e *errorWriter) responseError(w http.ResponseWriter, r *http.Request, err error) {
	if s, ok := w.(interface{ started() bool }); ok && s.started() {
		e.logger.DebugContext(r.Context(), "response write failed", "method", r.Method, "path", r.URL.Path, "error", err)
		return
	}
	e.write(w, r, err)
}

// paramError answers a query parameter the generated wrapper could not bind.
// A required parameter that is missing is an empty one, which the domain
// answers.
func (e *errorWriter) paramError(w http.ResponseWriter, r *http.Request, err error) {
	op := routeFrom(r.Context()).op
	var required *api.RequiredParamError
	var format *api.InvalidParamFormatError
	switch {
	case errors.As(err, &required) && op == opListProducts:
		e.write(w, r, orInvalidParam(reference.ListQuery{}.Check(), required.ParamName))
	case errors.As(err, &required) && op == opSyncProducts:
		e.write(w, r, orInvalidParam(reference.SyncQuery{}.Check(), required.ParamName))
	case errors.As(err, &required):
		e.write(w, r, errInvalidParam(required.ParamName))
	case errors.As(err, &format):
		e.write(w, r, errInvalidParam(format.ParamName))
	default:
		e.write(w, r, errMalformedRequest)
	}
}

func orMalformed(err error) error {
	if err == nil {
		return errMalformedRequest
	}
	return err
}

func orInvalidParam(err error, name string) error {
	if err == nil {
		return errInvalidParam(name)
	}
	return err
}
