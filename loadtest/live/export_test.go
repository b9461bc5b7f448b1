package live

import "time"

// StretchScrapeInterval makes the last two scrapes s has seen d apart, as a
// scraper that comes every d would have (Close then lingers one and a half
// d, at most maxLinger, for its next scrape), without the test waiting d.
func StretchScrapeInterval(s *Server, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.before = s.last.Add(-d)
}

// MaxLinger is maxLinger, for the tests.
const MaxLinger = maxLinger
