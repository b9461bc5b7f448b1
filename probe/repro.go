package probe

import (
	"fmt"
	"net/http"

	"github.com/partnercommerce/conformance/internal/repro"
)

// script writes the shell script that sends a wave again with curl
// (package repro: the secrets as variables named after their profile
// keys, the partner_trx_ids fresh on each run): the payer's profile
// before, the refused payment (if any), the payments at once (background
// jobs), the status lookup of the shared partner_trx_id (sameID), and the
// profile after. A cashier the probe provisioned is provisioned again by
// the script, which answers its token.
func (w *world) script(title string, p *payer, refusal *payment, pays []payment, sameID bool) string {
	s := repro.New(w.opts.Profile, w.opts.ProfilePath, w.opts.Conn)
	s.Title(fmt.Sprintf("%s: the probe's wave (seed %d), sent again.", title, w.opts.Seed))
	if p.provision != nil {
		s.Provisioned(p.token, w.c.secret, "cashier", p.provision)
	}
	curl := func(r request) string {
		h := http.Header{"X-Secret-Key": {w.c.secret}}
		if r.token != "" {
			h.Set("Authorization", "Bearer "+r.token)
		}
		if r.body != nil {
			h.Set("Content-Type", "application/json")
		}
		return s.Curl(repro.Request{Method: r.method, Path: r.path, Query: r.query, Header: h, Body: r.body})
	}
	profile := request{method: http.MethodGet, path: pathProfile, token: p.token}
	s.Line("echo 'the wallet before:'; " + curl(profile))
	if refusal != nil {
		s.Line("echo 'the refused payment:'; " + curl(refusal.request(p.token)))
	}
	s.Line(fmt.Sprintf("echo 'the %d payments at once:'", len(pays)))
	if sameID {
		s.Line(fmt.Sprintf("for i in $(seq %d); do\n  %s &\ndone", len(pays), curl(pays[0].request(p.token))))
	} else {
		for _, pm := range pays {
			s.Line(curl(pm.request(p.token)) + " &")
		}
	}
	s.Line("wait")
	if sameID {
		s.Line("echo 'the status lookup:'; " + curl(request{method: http.MethodGet, path: pathStatus, query: "partner_trx_id=" + pays[0].id, token: p.token}))
	}
	s.Line("echo 'the wallet after:'; " + curl(profile))
	return s.String()
}
