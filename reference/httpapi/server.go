package httpapi

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/reference"
)

// NewServer returns the whole HTTP API of the reference server over store:
// routing with JSON 404 and 405 answers, authentication before any parsing,
// the 64 KiB body limit, the generated strict server with JSON error
// handlers, request logging and panic recovery. The wire faults the store
// was built with (reference.WithFaults) are installed here, once.
func NewServer(logger *slog.Logger, store *reference.Store) http.Handler {
	return newServer(logger, store, true)
}

// newServer is NewServer; with fast false every create-payment request
// takes the general path (the tests compare the two).
func newServer(logger *slog.Logger, store *reference.Store, fast bool) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	errs := &errorWriter{logger: logger}
	h := &handlers{store: store}
	strict := api.NewStrictHandlerWithOptions(h, nil, api.StrictHTTPServerOptions{
		RequestErrorHandlerFunc:  errs.requestError,
		ResponseErrorHandlerFunc: errs.responseError,
	})
	mux := http.NewServeMux()
	// Whatever the generated routes do not match is still answered in JSON.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { errs.write(w, r, errNoRoute) })
	api.HandlerWithOptions(strict, api.StdHTTPServerOptions{BaseRouter: mux, ErrorHandlerFunc: errs.paramError})
	table := routes()
	g := &gate{store: store, errs: errs, routes: table, next: withRequestFaults(mux, table, store.Faults())}
	if fast && len(refusals(store.Faults())) == 0 {
		g.fast = &paymentFast{h: h, errs: errs}
	}
	var next http.Handler = g
	next = withWireFaults(next, table, store.Faults())
	return &observer{logger: logger, errs: errs, next: next}
}

// observer recovers from panics (500 "Terjadi kesalahan sistem." and a log
// line) and logs every request at debug level.
type observer struct {
	logger *slog.Logger
	errs   *errorWriter
	next   http.Handler
}

func (o *observer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := statusWriters.Get().(*statusWriter)
	sw.ResponseWriter, sw.status = w, 0
	defer func() {
		if rec := recover(); rec != nil {
			if rec == http.ErrAbortHandler { //nolint:errorlint // a sentinel panic value, compared as net/http does
				panic(rec)
			}
			o.logger.ErrorContext(r.Context(), "panic serving request",
				"method", r.Method, "path", r.URL.Path, "panic", rec, "stack", string(debug.Stack()))
			if sw.status == 0 {
				o.errs.write(sw, r, reference.ErrInternal)
			}
		}
		if o.logger.Enabled(r.Context(), slog.LevelDebug) {
			o.logger.LogAttrs(r.Context(), slog.LevelDebug, "request",
				slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", sw.status), slog.Duration("duration", time.Since(start)))
		}
		sw.ResponseWriter = nil
		statusWriters.Put(sw)
	}()
	o.next.ServeHTTP(sw, r)
}

// statusWriters recycles the observer's writers: the handler chain keeps
// none once the request is answered.
var statusWriters = sync.Pool{New: func() any { return new(statusWriter) }}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) started() bool { return s.status != 0 }

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
