package record

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/partnercommerce/conformance/internal/readable"
)

// Exhibit is one request of a run and the answer it got, as a finding
// shows it: the first request of each distinct unexpected answer (the
// error set keeps it), and what reconciliation read of an id or an account.
// It never holds a credential: the request's headers are not kept, only
// the account whose token it carried.
type Exhibit struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	// Account is the account whose token the request carried ("" for the
	// main token or none).
	Account string `json:"account,omitempty"`
	// Request is the request's body ("" when it had none).
	Request string `json:"request,omitempty"`
	// Status is the answer's status code; 0 when no answer came.
	Status      int    `json:"status"`
	ContentType string `json:"content_type,omitempty"`
	Server      string `json:"server,omitempty"`
	RetryAfter  string `json:"retry_after,omitempty"`
	// Answer is the answer's body, cut at MaxExhibitBody bytes.
	Answer string `json:"answer,omitempty"`
	// Detail is the whole verdict on the answer: what was found, with its
	// figures and the sentence of the document it rests on.
	Detail string `json:"detail,omitempty"`
	// Marks note the members of the answer the verdict is about, by JSON
	// pointer: String marks them where it shows the answer, and keeps them
	// in sight when it folds a long one.
	Marks map[string]string `json:"marks,omitempty"`
}

// MaxExhibitBody bounds the bodies an Exhibit keeps.
const MaxExhibitBody = 2048

// exhibitLines bounds the lines of an answer String writes (a JSON answer
// indented, one member a line).
const exhibitLines = 24

// NewExhibit is the exhibit of a request (method, url, the body sent, the
// account) and its answer (status, header h, body).
func NewExhibit(method, url, account string, sent []byte, status int, h http.Header, body []byte) *Exhibit {
	x := &Exhibit{Method: method, URL: url, Account: account, Request: cut(sent), Status: status, Answer: cut(body)}
	if h != nil {
		x.ContentType, x.Server, x.RetryAfter = h.Get("Content-Type"), h.Get("Server"), h.Get("Retry-After")
	}
	return x
}

// cut is b as text, cut at MaxExhibitBody bytes (on a character's
// boundary).
func cut(b []byte) string {
	if len(b) <= MaxExhibitBody {
		return string(b)
	}
	n := MaxExhibitBody
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "…"
}

// Header is the answer's headers the exhibit keeps.
func (x *Exhibit) Header() http.Header {
	h := http.Header{}
	for name, v := range map[string]string{"Content-Type": x.ContentType, "Server": x.Server, "Retry-After": x.RetryAfter} {
		if v != "" {
			h.Set(name, v)
		}
	}
	return h
}

// String writes the exhibit as a reader takes it in: the request line and
// its body, then the status line, the headers kept and the body of the
// answer, each line indented by indent.
func (x *Exhibit) String(indent string) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, indent+format+"\n", args...) }
	who := ""
	if x.Account != "" {
		who = " (with the token of " + x.Account + ")"
	}
	line("> %s %s%s", x.Method, x.URL, who)
	if x.Request != "" {
		line("> %s", x.Request)
	}
	if x.Status == 0 {
		line("< no answer: %s", x.Detail)
		return b.String()
	}
	status := fmt.Sprintf("< %d %s", x.Status, http.StatusText(x.Status))
	for _, h := range []struct{ name, v string }{{"Content-Type", x.ContentType}, {"Server", x.Server}, {"Retry-After", x.RetryAfter}} {
		if h.v != "" {
			status += fmt.Sprintf("; %s: %s", h.name, h.v)
		}
	}
	line("%s", strings.TrimRight(status, " "))
	for l := range strings.SplitSeq(strings.TrimRight(readable.Body([]byte(x.Answer), x.Marks, exhibitLines), "\n"), "\n") {
		if l != "" {
			line("< %s", l)
		}
	}
	return b.String()
}
