package live

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/partnercommerce/conformance/internal/side"
	vegetaprom "github.com/tsenart/vegeta/v12/lib/prom"
)

// Server serves a run's metrics on /metrics until Close, on a side
// listener (internal/side).
type Server struct {
	side *side.Server

	// mu guards the scrapes seen: how many, when the last two began, and
	// the channel closed when the next one begins.
	mu           sync.Mutex
	scrapes      int
	last, before time.Time
	next         chan struct{}
}

// maxLinger bounds how long Close waits for a last scrape.
const maxLinger = 30 * time.Second

// Serve listens on addr (host:port; port 0 picks a free one) and serves
// the load tester's Go profiles on /debug/pprof/ and m on /metrics, in OpenMetrics text when the scraper asks for it (vegeta's
// lib/prom handler over m's registry).
func Serve(ctx context.Context, addr string, m *Metrics) (*Server, error) {
	s := &Server{next: make(chan struct{})}
	metrics := vegetaprom.NewHandler(m.reg, time.Now())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.scraped()
		metrics.ServeHTTP(w, r)
	}))
	mux.Handle("GET /debug/pprof/", side.Profiles()) // the load tester's own profiles, for a performance engineer
	srv, err := side.Listen(ctx, addr, mux, nil)
	if err != nil {
		return nil, err
	}
	s.side = srv
	return s, nil
}

// scraped notes that a scrape begins.
func (s *Server) scraped() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scrapes++
	s.before, s.last = s.last, time.Now()
	close(s.next)
	s.next = make(chan struct{})
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.side.Addr() }

// Close stops the server once the run's last figures have been scraped:
// when a scraper comes at a steady interval, Close waits for its next
// scrape (at most one and a half intervals, and at most maxLinger, and
// until ctx ends), since the figures it saw last are not the run's final
// ones (the report's verdict on the thresholds, the last results). Then a
// scrape in progress may end.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	next, every := s.next, s.last.Sub(s.before)
	steady := s.scrapes >= 2
	s.mu.Unlock()
	if steady {
		t := time.NewTimer(min(every*3/2, maxLinger))
		select {
		case <-next:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return s.side.Close(ctx)
}
