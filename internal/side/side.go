// Package side serves what a program shows beside its work on a listener
// of its own: Prometheus metrics (the reference's --metrics-addr, the load
// tester's --prometheus-addr) and Go's profiles (--pprof-addr), so that
// the API's paths stay the document's and a scrape never competes with
// the load. One listener, one server, one way to stop it, for every
// program.
package side

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// Server serves a handler on its own listener until Close.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Listen listens on addr (host:port; port 0 picks a free one) and serves
// h there. errLog receives the server's own errors (nil: the log
// package's). A CPU profile or a trace takes as long as it was asked for,
// so there is no write timeout; a client's request must be read within
// seconds.
func Listen(ctx context.Context, addr string, h http.Handler, errLog *log.Logger) (*Server, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, done: make(chan error, 1),
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, ErrorLog: errLog}}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops serving: the requests under way may end until ctx does. A
// nil server has nothing to stop.
func (s *Server) Close(ctx context.Context) error {
	if s == nil {
		return nil
	}
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// Profiles is net/http/pprof's handler of a program's Go profiles under
// /debug/pprof/.
func Profiles() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}
