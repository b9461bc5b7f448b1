package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/cucumber/godog"
)

// The replay steps send one request exactly as written: the generated mode
// writes a failing request of a schema property as a feature file in these
// words, so that `conformance FILE` runs it against the target and fails
// the same way. A partner_trx_id the generated mode made up (gen-...) is
// replaced by a fresh one, since the target may hold the original already.

func (s *scenario) registerReplay(sc stepper) {
	sc.Step(`^`+actorRE+` sends (GET|POST) "([^"]*)" with the JSON body:$`, s.sendWritten)
	sc.Step(`^`+actorRE+` sends (GET|POST) "([^"]*)"$`, func(ctx context.Context, actor, method, path string) error {
		return s.sendWritten(ctx, actor, method, path, nil)
	})
	sc.Step(`^the target refuses it with a 4xx status$`, s.expectRefusal)
}

// sendWritten sends method path with body as actor: the partner's secret
// key and the actor's token.
func (s *scenario) sendWritten(ctx context.Context, actor, method, path string, body *godog.DocString) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	var raw []byte
	if body != nil {
		raw = s.freshTrxID([]byte(body.Content))
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(s.h.profile.BaseURL, "/")+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-SECRET-KEY", a.partner.secretKey)
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	_, err = s.send(func() (*http.Response, error) { return (&recorder{s: s}).Do(req) })
	return err
}

// freshTrxID replaces a generated partner_trx_id (gen-...) of a JSON body
// by one of this run; any other body is sent as written.
func (s *scenario) freshTrxID(body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	var id string
	if json.Unmarshal(m["partner_trx_id"], &id) != nil || !strings.HasPrefix(id, "gen-") {
		return body
	}
	fresh, _ := json.Marshal(s.nextTrxID()) // a string always marshals
	return bytes.Replace(body, m["partner_trx_id"], fresh, 1)
}

// expectRefusal checks that the last request was refused with a 4xx
// status: the document refuses a request that breaks its schema.
func (s *scenario) expectRefusal() error {
	ex := s.last
	if ex == nil {
		return s.failure(ex, "§7", "a 4xx refusal", "no request was sent")
	}
	if ex.Status/100 != 4 {
		return s.failure(ex, "§7: the document refuses this request", "a 4xx refusal", "got status %d", ex.Status)
	}
	return nil
}
