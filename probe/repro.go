package probe

import (
	"fmt"
	"net/http"

	"github.com/partnercommerce/conformance/internal/repro"
)

// DefaultTries is how many times a wave's reproduction sends its wave
// when $TRIES is not set: a race shows in some waves only.
const DefaultTries = 20

// script writes the shell script that sends a wave again with curl
// (package repro: the secrets as variables named after their profile
// keys, the partner_trx_ids fresh on each wave), up to $TRIES times
// (DefaultTries), until a wave shows the defect: the payer's profile
// before, the refused payment (if any), the payments at once (background
// jobs), the profile after. Each wave is checked as the probe checks it:
// with one partner_trx_id (sameID) no more than one payment created; the
// payments together take no more than the wallet held; the wallet after
// holds what the created ones reported leaving (package repro's wallet
// check, internal/contract's arithmetic). It prints "DEFECT in wave 3 of
// 20: …" and exits 1 at the first wave that shows one, or says that none
// did. A cashier the probe provisioned is provisioned again by the
// script, which answers its token.
func (w *world) script(title string, p *payer, refusal *payment, pays []payment, sameID bool) string {
	s := repro.New(w.opts.Profile, w.opts.ProfilePath, w.opts.Conn)
	s.Title(fmt.Sprintf("%s: the probe's wave (seed %d), sent again until a wave shows the defect.", title, w.opts.Seed))
	if p.provision != nil {
		s.Provisioned(p.token, w.c.secret, "cashier", p.provision)
	}
	send := func(name string, r request) string {
		h := http.Header{"X-Secret-Key": {w.c.secret}}
		if r.token != "" {
			h.Set("Authorization", "Bearer "+r.token)
		}
		if r.body != nil {
			h.Set("Content-Type", "application/json")
		}
		return s.SaveLine(name, repro.Request{Method: r.method, Path: r.path, Query: r.query, Header: h, Body: r.body})
	}
	profile := request{method: http.MethodGet, path: pathProfile, token: p.token}
	s.Line(fmt.Sprintf("TRIES=${TRIES:-%d}  # the waves to send at most: a race shows in some waves only", DefaultTries))
	s.Line(`wave=1
while [ "$wave" -le "$TRIES" ]; do
  at="in wave $wave of $TRIES"
  ` + repro.FreshIDLine())
	s.Line("  " + send("before", profile) + "\n  wallet_from before")
	if refusal != nil {
		s.Line("  " + send("refusal", refusal.request(p.token)) + "\n  paid refusal")
	}
	n := len(pays)
	if sameID {
		s.Line(fmt.Sprintf("  i=1; while [ \"$i\" -le %d ]; do %s & i=$((i + 1)); done; wait", n, send("pay$i", pays[0].request(p.token))))
		s.Line(fmt.Sprintf(`  created=$(cat "$DIR"/pay*.code | grep -c '^200$' || true)
  if [ "$created" -gt 1 ]; then defect "$at" "$created payments created with one partner_trx_id"; fi
  i=1; while [ "$i" -le %d ]; do paid "pay$i"; i=$((i + 1)); done`, n))
	} else {
		for i, pm := range pays {
			s.Line(fmt.Sprintf("  %s &", send(fmt.Sprintf("pay%d", i+1), pm.request(p.token))))
		}
		s.Line(fmt.Sprintf("  wait\n  i=1; while [ \"$i\" -le %d ]; do paid \"pay$i\"; i=$((i + 1)); done\n  taken_within \"$at\"", n))
	}
	s.Line("  " + send("after", profile) + "\n  wallet_check after \"$at\"")
	s.Line(`  wave=$((wave + 1))
done
echo "` + repro.NoDefectLine + ` in $TRIES waves (a race may need more)"`)
	return s.String()
}
