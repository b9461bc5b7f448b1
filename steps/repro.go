package steps

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/partnercommerce/conformance/internal/atomicfile"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/internal/transport"
)

// ReproductionHead is the line of a failure's text that its reproduction
// follows, each of its lines indented by four spaces.
const ReproductionHead = "  reproduce (sh, once the variables its first line names are set):"

// reproTarget is how a failure's reproduction names the profile and
// reaches the target.
type reproTarget struct {
	profilePath string
	conn        transport.Options
	// harDir, when set, receives the HAR file of each failed scenario
	// (writeHAR).
	harDir string
}

// reproduction is the request of ex as a shell script of curl (package
// repro: the profile's secrets as variables named after their keys, the
// accounts the scenario provisioned provisioned again for their tokens, a
// partner_trx_id the run made up fresh on each run), after
// ReproductionHead; "" for an exchange of no scenario's.
func (ex *exchange) reproduction() string {
	if ex == nil || ex.by == nil {
		return ""
	}
	sc := ex.by.script()
	for i, b := range ex.before {
		if i == 0 {
			sc.Comment("sent before with the same partner_trx_id:")
		}
		sc.Add(b.reproRequest())
	}
	if len(ex.before) > 0 {
		sc.Comment("then:")
	}
	sc.Add(ex.reproRequest())
	return reproductionText(sc)
}

// reproductionText is the script after ReproductionHead, indented.
func reproductionText(sc *repro.Script) string {
	return ReproductionHead + "\n    " + strings.ReplaceAll(strings.TrimRight(sc.String(), "\n"), "\n", "\n    ") + "\n"
}

// script starts a reproduction of the scenario's requests: the accounts it
// provisioned are provisioned again for their tokens.
func (s *scenario) script() *repro.Script {
	h := s.h
	sc := repro.New(h.profile, h.repro.profilePath, h.repro.conn)
	actors := make([]string, 0, len(s.accounts))
	for actor := range s.accounts {
		actors = append(actors, actor)
	}
	sort.Strings(actors)
	for _, actor := range actors {
		if a := s.accounts[actor]; a.phone != "" {
			body, _ := json.Marshal(map[string]string{"name": a.name, "phone_number": a.phone, "email": a.email}) // strings always marshal
			sc.Provisioned(a.token, a.partner.secretKey, strings.TrimPrefix(actor, "the "), body)
		}
	}
	return sc
}

// walletFailure is failure for a wallet that does not hold what the
// payments of account a left: its reproduction is the wallet's
// (walletReproduction), not the last request alone.
func (s *scenario) walletFailure(a *account, ex *exchange, section, expected, format string, args ...any) error {
	var b strings.Builder
	fmt.Fprintf(&b, "found: %s\n", fmt.Sprintf(format, args...))
	fmt.Fprintf(&b, "  checks:   %s\n", section)
	fmt.Fprintf(&b, "  expected: %s\n", expected)
	b.WriteString(ex.shown(s.walletReproduction(a)))
	return &stepError{report: b.String(), cause: failureCause(ex, section, expected, format, args)}
}

// walletReproduction is the reproduction of a wallet failure of account
// a: the scenario's requests from a's first profile read to its last, in
// order, but for the reads other than a's profile (they change nothing),
// which the script sends again and checks as the suite did
// (package repro's wallet check, internal/contract's arithmetic): the
// first profile read is where the wallet starts, each payment of a
// created takes what it reports, each later profile read is checked. It
// prints DEFECT with the figures, or that it saw none.
func (s *scenario) walletReproduction(a *account) string {
	bearer := "Bearer " + a.token
	first, last := -1, -1
	for i, ex := range s.sent {
		if ex.Operation == contract.OpGetCustomerProfile && ex.ReqHeader.Get("Authorization") == bearer {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || first == last {
		return s.last.reproduction()
	}
	sc := s.script()
	sc.Comment(fmt.Sprintf("%s's wallet: read it, send what the scenario sent, read it again; the payments' amounts say what it holds.", strings.TrimPrefix(a.actor, "the ")))
	for i, ex := range s.sent[first : last+1] {
		mine := ex.ReqHeader.Get("Authorization") == bearer
		switch {
		case mine && ex.Operation == contract.OpGetCustomerProfile && i == 0:
			sc.Save("wallet", ex.reproRequest())
			sc.WalletFrom("wallet")
		case mine && ex.Operation == contract.OpGetCustomerProfile:
			name := fmt.Sprintf("wallet%d", i)
			sc.Save(name, ex.reproRequest())
			sc.WalletCheck(name)
		case mine && ex.Operation == contract.OpCreatePayment:
			name := fmt.Sprintf("payment%d", i)
			sc.Save(name, ex.reproRequest())
			sc.Paid(name)
		case ex.Method != http.MethodGet: // a read changes nothing: only what may change state is sent
			sc.Save(fmt.Sprintf("answer%d", i), ex.reproRequest())
		}
	}
	sc.Verdict()
	return reproductionText(sc)
}

// reproRequest is ex's request as a reproduction sends it.
func (ex *exchange) reproRequest() repro.Request {
	path := strings.TrimPrefix(ex.URL, strings.TrimRight(ex.by.h.profile.BaseURL, "/"))
	path, query, _ := strings.Cut(path, "?")
	return repro.Request{Method: ex.Method, Path: path, Query: query, Header: ex.ReqHeader, Body: ex.ReqBody}
}

// HARHead starts the line of a failure's text that names its HAR file.
const HARHead = "requests and answers (HAR, for a browser's network panel):"

// HARDir is the folder of the report directory that holds a HAR file of
// each failed scenario's requests and answers (writeHAR).
const HARDir = "har"

// harDir is the folder of HAR files of the report directory dir, or "".
func harDir(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, HARDir)
}

// writeHAR writes the scenario's requests and answers, in order, as a HAR
// file in the run's HAR folder (none without a report directory), named
// after the scenario's location (payments.feature:102 is
// payments-102.har), so that a browser's network panel, or any tool that
// imports HAR, opens them; the secrets are masked as the console masks
// them (repro.WriteHAR). It returns the file's path, or "" when it wrote
// none; a file that cannot be written is the run's error once its reports
// are written (harErrors), and the run goes on.
func (s *scenario) writeHAR(location string) string {
	dir := s.h.repro.harDir
	if dir == "" || location == "" || len(s.sent) == 0 {
		return ""
	}
	exchanges := make([]repro.Exchange, 0, len(s.sent))
	for _, ex := range s.sent {
		exchanges = append(exchanges, repro.Exchange{Sent: ex.Sent, Elapsed: ex.Elapsed, Method: ex.Method, URL: ex.URL,
			ReqHeader: ex.ReqHeader, ReqBody: ex.ReqBody, Status: ex.Status, RespHeader: ex.RespHeader, RespBody: ex.RespBody})
	}
	file, line, _ := strings.Cut(location, ":")
	path := filepath.Join(dir, strings.TrimSuffix(filepath.Base(file), ".feature")+"-"+line+".har")
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = atomicfile.Write(path, func(w io.Writer) error { return repro.WriteHAR(w, "conformance", s.h.profile, exchanges) })
	}
	if err != nil {
		s.h.har.add(err)
		return ""
	}
	return path
}

// harErrors keeps the first error of the HAR files of a run: Run returns
// it once the reports are written, as it does a report it could not write.
type harErrors struct {
	mu    sync.Mutex
	first error
}

func (e *harErrors) add(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first == nil {
		e.first = fmt.Errorf("the HAR file of a failure: %w", err)
	}
}

func (e *harErrors) err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.first
}
