package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// sideServer serves h beside the API on its own listener (the metrics, the
// profiles), so that the API's paths stay the document's.
type sideServer struct {
	srv  *http.Server
	done chan error
}

// startSide listens on addr and serves h there; flag names the listener in
// an error. A CPU profile or a trace takes as long as asked for, so there
// is no write timeout.
func startSide(ctx context.Context, flag, addr string, h http.Handler, logger *slog.Logger) (*sideServer, net.Addr, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", flag, err)
	}
	s := &sideServer{srv: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}, done: make(chan error, 1)}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, ln.Addr(), nil
}

// close stops serving; nothing on a nil server.
func (s *sideServer) close() error {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
