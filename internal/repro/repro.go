// Package repro writes the reproduction of a failure: the requests that
// showed it, as a POSIX shell script of curl lines that runs as printed.
// The suite, the generated mode and the concurrency probe print theirs
// through it, so that every reproduction reads and runs alike:
//
//   - no secret is written: each is an environment variable named after
//     the profile key it comes from (secret_key is $SECRET_KEY,
//     funded_customer.token $FUNDED_CUSTOMER_TOKEN), and the script's
//     first lines say, once for each, which key of which profile file to
//     set it to; a header of -H is a variable too ($HEADER_X_GATEWAY_KEY);
//     the script stops at once, saying so, when one of them is unset;
//   - the token of an account the run provisioned is provisioned again by
//     the script into a variable: the document synchronizes a phone number
//     provisioned before and answers its token (§4.4);
//   - a partner_trx_id a judge made up (MadeUp: conf-…, gen-…, probe-…) is
//     made fresh on each run of the script, so that a payment sent again is
//     not refused as a reuse (409), which would hide the defect; what a
//     defect added past the made-up head is kept, and the id's length with
//     it (FreshID);
//   - the run's TLS files are curl's (--cacert, --cert and --key, -k);
//   - a defect that lies in more than one answer (a wallet, a wave) is
//     computed by the script, which prints DEFECT or "no defect seen"
//     (check.go).
//
// A value no profile key holds and no account of the run owns (a wrong
// secret key, an invalid token a scenario made up) is written as it is.
package repro

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/profiles"
)

// ReferenceProfile is the profile file a reproduction of a run against the
// embedded reference names as where its secrets come from.
const ReferenceProfile = "profiles/reference.yaml"

// PathProvision is the path of the provisioning of an account (§4.4).
const PathProvision = "/client/v2/customer/provision_account"

// Script is a reproduction being written. Its zero value is not usable:
// New makes one.
type Script struct {
	title         string
	base, profile string
	conn          transport.Options
	// secrets are the values written as variables, longest first (so that
	// a value holding another is written whole), with their variables.
	secrets []secret
	// vars are the variables the requests use, in their order, with what
	// each holds.
	vars  []variable
	setup []string
	lines []string
	// ids are the made-up partner_trx_ids met, each with its fresh word
	// (by index: repro-$ID, repro-$ID-2, …).
	ids []string
	// checked is set when the script computes a check (check.go): it
	// defines the check functions.
	checked bool
}

type secret struct {
	value string
	name  string // the variable
	key   string // the profile key it holds
	order int    // the key's place in the profile (profiles.Profile.Secrets)
	// provision, for the token of an account the run provisioned, is the
	// line that sets its variable.
	provision func(*Script) string
}

// variable is a variable the script reads: the profile key it holds, or
// else what it holds in words.
type variable struct {
	name, key, from string
	order           int
}

// New starts the reproduction of requests to the target of prof (its base
// URL; its secrets written as variables named after their keys), whose
// profile file is profilePath ("" for the embedded reference's,
// ReferenceProfile), reached as conn says (TLS files, -H headers).
func New(prof *profiles.Profile, profilePath string, conn transport.Options) *Script {
	if profilePath == "" {
		profilePath = ReferenceProfile
	}
	s := &Script{base: strings.TrimRight(prof.BaseURL, "/"), profile: profilePath, conn: conn}
	for i, sc := range prof.Secrets() {
		s.secrets = append(s.secrets, secret{value: sc.Value, name: varName(sc.Key), key: sc.Key, order: i})
	}
	s.sortSecrets()
	return s
}

// Provisioned says that token is that of an account the run provisioned
// with body (its name, phone_number and email), with the partner's secret
// key secretKey: a request with it provisions the account again first,
// into a variable named after label ("cashier" is $CASHIER_TOKEN).
func (s *Script) Provisioned(token, secretKey, label string, body []byte) {
	if token == "" || slices.ContainsFunc(s.secrets, func(sc secret) bool { return sc.value == token }) {
		return
	}
	name := varName(label + "_token")
	for n := 2; slices.ContainsFunc(s.secrets, func(sc secret) bool { return sc.name == name }); n++ {
		name = varName(fmt.Sprintf("%s_token_%d", label, n))
	}
	h := http.Header{"X-Secret-Key": {secretKey}, "Content-Type": {"application/json"}}
	s.secrets = append(s.secrets, secret{value: token, name: name, provision: func(s *Script) string {
		return fmt.Sprintf("%s=$(%s | sed -n 's/.*\"token\" *: *\"\\([^\"]*\\)\".*/\\1/p')  # %s's token: provisioning its phone number again answers it (§4.4)",
			name, s.curl("curl -sS", Request{Method: http.MethodPost, Path: PathProvision, Header: h, Body: body}), label)
	}})
	s.sortSecrets()
}

func (s *Script) sortSecrets() {
	slices.SortStableFunc(s.secrets, func(a, b secret) int { return len(b.value) - len(a.value) })
}

// Request is one request as the script sends it.
type Request struct {
	Method string
	// Path and Query are the URL's after the base URL (Query raw, without
	// "?").
	Path, Query string
	// Header is the request's header as it was sent (the -H headers of the
	// run are the script's own): the secrets in it are written as their
	// variables.
	Header http.Header
	// Body is sent as it is, but for a made-up partner_trx_id (MadeUp),
	// written fresh.
	Body []byte
}

// Title sets the comment the script starts with: what it reproduces.
func (s *Script) Title(text string) { s.title = text }

// Comment adds a comment line.
func (s *Script) Comment(text string) {
	s.lines = append(s.lines, "# "+strings.ReplaceAll(text, "\n", "\n# "))
}

// Line adds a line of shell as it is (the probe's loop and wait).
func (s *Script) Line(line string) { s.lines = append(s.lines, line) }

// Add adds the curl line of r.
func (s *Script) Add(r Request) { s.lines = append(s.lines, s.Curl(r)) }

// Curl is the curl command of r: it prints the answer with its status line
// and header.
func (s *Script) Curl(r Request) string { return s.curl("curl -sS -i -w '\\n'", r) }

// curl is r as a command starting with cmd.
func (s *Script) curl(cmd string, r Request) string {
	var b strings.Builder
	b.WriteString(cmd)
	for _, a := range s.connArgs() {
		b.WriteString(" " + a)
	}
	if r.Method != http.MethodGet {
		b.WriteString(" -X " + r.Method)
	}
	u := []part{{expr: "BASE"}, {lit: r.Path}}
	if r.Query != "" {
		u = append(u, part{lit: "?"})
		u = append(u, s.query(r.Query)...)
	}
	b.WriteString(" " + word(u))
	for _, name := range headerOrder(r.Header) {
		for _, v := range r.Header[name] {
			b.WriteString(" -H " + word(append([]part{{lit: name + ": "}}, s.secretParts(v)...)))
		}
	}
	if r.Body != nil {
		b.WriteString(" --data-binary " + word(s.body(r.Body)))
	}
	return b.String()
}

// headerOrder is the names of h as a reader of the document expects them:
// the secret key, the token, then the others in order.
func headerOrder(h http.Header) []string {
	rank := func(name string) int {
		switch http.CanonicalHeaderKey(name) {
		case "X-Secret-Key":
			return 0
		case "Authorization":
			return 1
		}
		return 2
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return names
}

// connArgs are curl's arguments for the run's TLS files and -H headers
// (their values from variables).
func (s *Script) connArgs() []string {
	var args []string
	o := s.conn
	if o.CACert != "" {
		args = append(args, "--cacert", word([]part{{lit: o.CACert}}))
	}
	if o.ClientCert != "" {
		args = append(args, "--cert", word([]part{{lit: o.ClientCert}}), "--key", word([]part{{lit: o.ClientKey}}))
	}
	if o.InsecureSkipVerify {
		args = append(args, "-k")
	}
	names := make([]string, 0, len(o.Headers))
	for name := range o.Headers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		v := headerVar(name)
		s.use(variable{name: v, from: "the value of -H '" + name + ": …'"})
		args = append(args, "-H", word([]part{{lit: name + ": "}, {expr: v}}))
	}
	return args
}

// use notes that the script reads variable v.
func (s *Script) use(v variable) {
	if !slices.ContainsFunc(s.vars, func(u variable) bool { return u.name == v.name }) {
		s.vars = append(s.vars, v)
	}
}

// secretParts is value with each secret in it written as its variable.
func (s *Script) secretParts(value string) []part {
	for _, sc := range s.secrets {
		before, after, ok := strings.Cut(value, sc.value)
		if !ok {
			continue
		}
		if sc.provision != nil {
			line := sc.provision(s) // it reads the partner's secret key
			if !slices.Contains(s.setup, line) {
				s.setup = append(s.setup, line)
			}
		} else {
			s.use(variable{name: sc.name, key: sc.key, order: sc.order})
		}
		out := append(s.secretParts(before), part{expr: sc.name})
		return append(out, s.secretParts(after)...)
	}
	if value == "" {
		return nil
	}
	return []part{{lit: value}}
}

// madeUp matches the head of a partner_trx_id a judge of this module made
// up: the suite's conf-RUN-N, the generated mode's gen-RUN-N, the probe's
// probe-RUN-N.
var madeUp = regexp.MustCompile(`^(?:conf|gen|probe)-[0-9]+-[0-9]+`)

// MadeUp reports whether id is a partner_trx_id a judge made up (or one
// it made up with characters added: the defect of a request).
func MadeUp(id string) bool { return madeUp.MatchString(id) }

// FreshID is id with its made-up head (MadeUp) replaced by fresh, keeping
// what follows the head, and the id's length in characters when something
// does (an id one character too long stays one character too long, as
// far as fresh leaves room). ok is false, and id is returned, when id was
// not made up.
func FreshID(id, fresh string) (string, bool) {
	rest, ok := keep(id, utf8.RuneCountInString(fresh))
	if !ok {
		return id, false
	}
	return fresh + rest, true
}

// keep is what follows the made-up head of id, cut or grown to keep the
// id's length with a fresh head of freshLen characters.
func keep(id string, freshLen int) (string, bool) {
	head := madeUp.FindString(id)
	if head == "" {
		return "", false
	}
	rest := []rune(id[len(head):])
	if len(rest) > 0 {
		length := utf8.RuneCountInString(id)
		for freshLen+len(rest) < length { // a longer head than the fresh one's
			rest = append(rest[:1:1], rest...)
		}
		rest = rest[min(freshLen+len(rest)-length, len(rest)-1):]
	}
	return string(rest), true
}

// The fresh ids of a script: repro-$ID for its first made-up id,
// repro-$ID-2 for its second, … ; $ID is 12 random characters drawn on
// each run.
const (
	freshPrefix = "repro-"
	idLen       = 12
	idLine      = "ID=$(LC_ALL=C tr -dc a-z0-9 </dev/urandom | head -c 12)  # a fresh partner_trx_id on each run"
)

// freshID is the fresh word of the made-up id (met in a body when body is
// true; in a query, only an id met in a body before is), and what of id
// follows it.
func (s *Script) freshID(id string, body bool) ([]part, bool) {
	i := slices.Index(s.ids, id)
	if i < 0 && !body {
		return nil, false
	}
	if i < 0 {
		s.ids = append(s.ids, id)
		i = len(s.ids) - 1
	}
	suffix := ""
	if i > 0 {
		suffix = fmt.Sprintf("-%d", i+1)
	}
	rest, ok := keep(id, len(freshPrefix)+idLen+len(suffix))
	if !ok {
		return nil, false
	}
	return []part{{lit: freshPrefix}, {expr: "ID"}, {lit: suffix + rest}}, true
}

// body is a request body with a made-up partner_trx_id written fresh.
func (s *Script) body(b []byte) []part {
	var m map[string]json.RawMessage
	var id string
	if json.Unmarshal(b, &m) != nil || json.Unmarshal(m["partner_trx_id"], &id) != nil || !MadeUp(id) {
		return []part{{lit: string(b)}}
	}
	fresh, ok := s.freshID(id, true)
	raw := string(m["partner_trx_id"])
	at := strings.Index(string(b), raw)
	if !ok || at < 0 || raw != `"`+id+`"` { // an id JSON writes escaped stays as it is
		return []part{{lit: string(b)}}
	}
	out := []part{{lit: string(b[:at]) + `"`}}
	out = append(out, fresh...)
	return append(out, part{lit: `"` + string(b[at+len(raw):])})
}

// query is a raw query with the partner_trx_id of a payment the script
// made before written as its fresh id.
func (s *Script) query(q string) []part {
	var out []part
	for i, pair := range strings.Split(q, "&") {
		if i > 0 {
			out = append(out, part{lit: "&"})
		}
		if name, value, ok := strings.Cut(pair, "="); ok && name == "partner_trx_id" {
			if fresh, ok := s.freshID(value, false); ok {
				out = append(append(out, part{lit: name + "="}), fresh...)
				continue
			}
		}
		out = append(out, part{lit: pair})
	}
	return out
}

// String is the script: what to set first, the base URL, the fresh id,
// the accounts provisioned again, then the lines.
func (s *Script) String() string {
	var b strings.Builder
	if s.title != "" {
		b.WriteString("# " + strings.ReplaceAll(s.title, "\n", "\n# ") + "\n")
	}
	if len(s.vars) > 0 {
		b.WriteString("# Set first: ")
		// The profile's keys in its order, then the -H headers.
		vars := slices.Clone(s.vars)
		slices.SortStableFunc(vars, func(a, b variable) int {
			switch {
			case a.key != "" && b.key != "":
				return a.order - b.order
			case a.key != "":
				return -1
			case b.key != "":
				return 1
			}
			return 0
		})
		named := false // the profile file, once
		guards := make([]string, 0, len(vars))
		for i, v := range vars {
			if i > 0 {
				b.WriteString(", ")
			}
			from := v.from
			switch {
			case v.key != "" && !named:
				from, named = "the "+v.key+" of "+s.profile, true
			case v.key != "":
				from = "its " + v.key
			}
			b.WriteString(v.name + " to " + from)
			if v.key != "" {
				from = "the " + v.key + " of " + s.profile
			}
			guards = append(guards, guard(v.name, from))
		}
		b.WriteString(".\n")
		for _, g := range guards {
			b.WriteString(g + "\n")
		}
	}
	b.WriteString("BASE=" + word([]part{{lit: s.base}}) + "\n")
	if len(s.ids) > 0 {
		b.WriteString(idLine + "\n")
	}
	if s.checked {
		b.WriteString(checkFuncs + "\n")
	}
	for _, l := range s.setup {
		b.WriteString(l + "\n")
	}
	for _, l := range s.lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// guard is the line that stops the script at once, saying what to set it
// to, when the variable name is unset or empty: a request without its
// secret would be refused (401), which reads like the target's fault.
func guard(name, from string) string {
	from = strings.Map(func(r rune) rune {
		if strings.ContainsRune("\"$`\\}", r) {
			return '_'
		}
		return r
	}, from)
	return `: "${` + name + `:?set ` + name + ` to ` + from + `}"`
}

// part is a piece of a shell word: a literal, or a variable (expr).
type part struct{ lit, expr string }

// word writes parts as one shell word: in double quotes while the
// literals are safe there, single-quoted otherwise, the variables
// expanded.
func word(parts []part) string {
	var b strings.Builder
	quoted := "" // "'" or `"` when a quote is open
	open := func(q string) {
		if quoted != q {
			b.WriteString(quoted)
			b.WriteString(q)
			quoted = q
		}
	}
	for _, p := range parts {
		switch {
		case p.expr != "":
			open(`"`)
			b.WriteString("${" + p.expr + "}")
		case p.lit == "":
		case !strings.ContainsAny(p.lit, "$`\"\\!"):
			if quoted == "" || quoted == "'" && strings.Contains(p.lit, "'") {
				open(`"`)
			}
			b.WriteString(p.lit)
		default:
			open("'")
			b.WriteString(strings.ReplaceAll(p.lit, "'", `'\''`))
		}
	}
	if quoted == "" {
		return "''"
	}
	b.WriteString(quoted)
	return b.String()
}

// varName is the variable of a profile key: in capitals, '.', '[' and ']'
// as '_' ("load_customers[0].token" is LOAD_CUSTOMERS_0_TOKEN).
func varName(key string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(key) {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// headerVar is the variable a reproduction reads the value of header name
// from: HEADER_ and the name in capitals, '-' as '_'.
func headerVar(name string) string { return "HEADER_" + varName(name) }

// Env is what a reproduction of a run with prof asks to set first, as
// NAME=value (os/exec's Cmd.Env): each secret of prof under the variable
// named after its key.
func Env(prof *profiles.Profile) []string {
	var env []string
	for _, sc := range prof.Secrets() {
		env = append(env, varName(sc.Key)+"="+sc.Value)
	}
	return env
}
