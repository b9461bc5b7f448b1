package probe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/partnercommerce/conformance/internal/transport"
)

// idMark stands for the partner_trx_id in a body until the script writes
// the shell variable in its place.
const idMark = "@@PARTNER_TRX_ID@@"

// script writes a bash script that sends a wave again with curl: the
// payer's profile before, the refused payment (if any), the payments at
// once (the background jobs of one loop), the status lookup of the shared
// partner_trx_id (sameID), and the profile after. The secrets are
// environment variables, each named in the first lines with where it comes
// from; the partner_trx_id is made fresh on each run ($ID, or $ID-1, $ID-2,
// … for distinct ids).
func (w *world) script(title string, p *payer, refusal *payment, pays []payment, sameID bool) string {
	var b strings.Builder
	profile := "profiles/reference.yaml"
	if w.opts.ProfilePath != "" {
		profile = w.opts.ProfilePath
	}
	fmt.Fprintf(&b, "# %s: the probe's wave (seed %d), sent again.\n", title, w.opts.Seed)
	fmt.Fprintf(&b, "# Set first: SECRET_KEY to the secret_key of %s, TOKEN to %s", profile, tokenSource(p))
	args, env := connArgs(w.opts.Conn)
	for _, e := range env {
		fmt.Fprintf(&b, ", %s to %s", e[0], e[1])
	}
	b.WriteString(".\n")
	fmt.Fprintf(&b, "BASE=%s\n", shellQuote(w.c.base))
	fmt.Fprintf(&b, "ID=\"probe-$(date +%%s%%N)\"  # a fresh partner_trx_id on each run\n")
	curl := func(method, path, query string, body []byte) string {
		line := "curl -sS -w '\\n'"
		if len(args) > 0 {
			line += " " + strings.Join(args, " ")
		}
		u := "$BASE" + path
		if query != "" {
			u += "?" + query
		}
		if method != "GET" {
			line += " -X " + method
		}
		line += fmt.Sprintf(` "%s" -H "X-SECRET-KEY: $SECRET_KEY" -H "Authorization: Bearer $TOKEN"`, u)
		if body != nil {
			quoted := shellQuote(string(body))
			line += " -H 'Content-Type: application/json' --data-binary " + strings.ReplaceAll(quoted, idMark, `'"$ID"'`)
		}
		return line
	}
	b.WriteString("echo 'the wallet before:'; " + curl("GET", pathProfile, "", nil) + "\n")
	if refusal != nil {
		r := *refusal
		r.id = idMark
		b.WriteString("echo 'the refused payment:'; " + curl("POST", pathPayment, "", r.request("").body) + "\n")
	}
	fmt.Fprintf(&b, "echo 'the %d payments at once:'\n", len(pays))
	if sameID {
		pm := pays[0]
		pm.id = idMark
		fmt.Fprintf(&b, "for i in $(seq %d); do\n  %s &\ndone\n", len(pays), curl("POST", pathPayment, "", pm.request("").body))
	} else {
		for i, pm := range pays {
			pm.id = fmt.Sprintf("%s-%d", idMark, i+1)
			b.WriteString(curl("POST", pathPayment, "", pm.request("").body) + " &\n")
		}
	}
	b.WriteString("wait\n")
	if sameID {
		b.WriteString("echo 'the status lookup:'; " + curl("GET", pathStatus, "partner_trx_id=$ID", nil) + "\n")
	}
	b.WriteString("echo 'the wallet after:'; " + curl("GET", pathProfile, "", nil) + "\n")
	return b.String()
}

// tokenSource says where a reproduction's TOKEN comes from.
func tokenSource(p *payer) string {
	if p.tokenKey != "" {
		return "its " + p.tokenKey
	}
	return fmt.Sprintf("the token of a cashier of the partner: the data.token that POST %s answers "+
		"(the probe provisioned its own, which pays through payment method %d)", pathProvision, p.method)
}

// connArgs is what the transport options add to a curl line (TLS, and the
// headers of -H, their values read from environment variables), and those
// variables with what each holds.
func connArgs(o transport.Options) (args []string, env [][2]string) {
	if o.CACert != "" {
		args = append(args, "--cacert", shellQuote(o.CACert))
	}
	if o.ClientCert != "" {
		args = append(args, "--cert", shellQuote(o.ClientCert), "--key", shellQuote(o.ClientKey))
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
		args = append(args, "-H", `"`+name+`: $`+v+`"`)
		env = append(env, [2]string{v, "the value of -H '" + name + ": …'"})
	}
	return args, env
}

// headerVar is the environment variable a reproduction reads the value of
// header name from: HEADER_ and the name in capitals, '-' as '_'.
func headerVar(name string) string {
	var b strings.Builder
	b.WriteString("HEADER_")
	for _, r := range strings.ToUpper(name) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
