package live

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	vegetaprom "github.com/tsenart/vegeta/v12/lib/prom"
)

// Server serves a run's metrics on /metrics until Close.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Serve listens on addr (host:port; port 0 picks a free one) and serves
// m on /metrics, in OpenMetrics text when the scraper asks for it (vegeta's
// lib/prom handler over m's registry).
func Serve(ctx context.Context, addr string, m *Metrics) (*Server, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", vegetaprom.NewHandler(m.reg, time.Now()))
	s := &Server{ln: ln, done: make(chan error, 1),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, letting a scrape in progress end (within ctx).
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
