package contract

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SentenceGateway is the sentence GatewayAnswer rests on.
const SentenceGateway = "§1: \"Every response is JSON\", with status and message. A page in HTML, or in text with a " +
	"proxy's Server header or a gateway's status (502, 503, 504), comes from a gateway in front of the API (a reverse " +
	"proxy, a load balancer, a firewall), not from the API: it is neither a pass nor a failure of the API's rules, and a " +
	"rule it kept from being judged is not passed."

// ErrGateway is an answer that a gateway in front of the API gave instead
// of the API (GatewayAnswer). A *GatewayError wraps it.
var ErrGateway = errors.New("a gateway answered, not the API")

// Gateway is what an answer shows of the gateway that gave it: its status,
// what its page calls that status, its Server header and its title.
type Gateway struct {
	Status int
	// Reason is what the page calls the status: its title without the
	// status code ("Service Temporarily Unavailable", "No required SSL
	// certificate was sent"), or the status's text when the page has no
	// title that starts with its code.
	Reason string
	// Server is the answer's Server header ("nginx/1.22.1"); "" when it
	// has none.
	Server string
	// Title is the HTML page's <title> (or, without one, its first <h1>),
	// or the first line of a text body; "" for an empty body.
	Title string
	// ContentType is the answer's Content-Type header.
	ContentType string
}

// GatewayAnswer reports whether an answer (its status, header h and body)
// came from a gateway in front of the API rather than from the API, and
// what it shows of that gateway. An answer is a gateway's when its body is
// not JSON and it is an HTML page, or it names its server (a Server
// header), or its status is a gateway's (502 Bad Gateway, 503 Service
// Unavailable, 504 Gateway Timeout); but not when the body is one of the
// document's messages written as text: a server that answers its errors in
// text/plain is the API breaking section 1 (every judge fails it), not a
// gateway. A throttled answer (Throttled) is the callers' to tell first:
// it is refused for its rate, whoever gave it.
func GatewayAnswer(status int, h http.Header, body []byte) (Gateway, bool) {
	trimmed := bytes.TrimSpace(body)
	if isJSON(trimmed) {
		return Gateway{}, false
	}
	g := Gateway{Status: status, Server: strings.TrimSpace(h.Get("Server")), ContentType: h.Get("Content-Type")}
	page := isHTML(g.ContentType, trimmed)
	if page {
		g.Title = htmlTitle(trimmed)
	} else {
		g.Title = firstLine(trimmed)
	}
	g.Reason = reason(status, g.Title)
	switch {
	case page:
	case documentMessage(string(trimmed)):
		return Gateway{}, false // the API, answering in text
	case g.Server != "", status == http.StatusBadGateway, status == http.StatusServiceUnavailable, status == http.StatusGatewayTimeout:
	default:
		return Gateway{}, false
	}
	return g, true
}

// isJSON reports whether body, trimmed, is a JSON value: the API's answer,
// whatever it holds.
func isJSON(trimmed []byte) bool {
	return len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') || len(trimmed) > 0 && validJSONScalar(trimmed)
}

// validJSONScalar reports whether body is a JSON string, number, true,
// false or null.
func validJSONScalar(body []byte) bool {
	var v any
	return Unmarshal(body, &v) == nil
}

// isHTML reports whether an answer with contentType and body is an HTML
// page.
func isHTML(contentType string, body []byte) bool {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && (mt == "text/html" || mt == "application/xhtml+xml") {
		return true
	}
	head := strings.ToLower(string(body[:min(len(body), 512)]))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html") || strings.Contains(head, "<title")
}

var (
	titleTag = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	h1Tag    = regexp.MustCompile(`(?is)<h1[^>]*>(.*?)</h1>`)
	tags     = regexp.MustCompile(`(?s)<[^>]*>`)
)

// htmlTitle is the title of an HTML page, or its first heading; "" when it
// has neither.
func htmlTitle(body []byte) string {
	for _, re := range []*regexp.Regexp{titleTag, h1Tag} {
		if m := re.FindSubmatch(body); m != nil {
			if t := clean(html.UnescapeString(tags.ReplaceAllString(string(m[1]), " "))); t != "" {
				return t
			}
		}
	}
	return ""
}

// firstLine is the first line of a text body that is not blank.
func firstLine(body []byte) string {
	for line := range strings.SplitSeq(string(body), "\n") {
		if t := clean(line); t != "" {
			return t
		}
	}
	return ""
}

// maxTitle bounds a title as the reports quote it.
const maxTitle = 120

// clean collapses the spaces of s and cuts it to maxTitle characters; a
// string that is not UTF-8 is quoted.
func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if !utf8.ValidString(s) {
		s = strings.Trim(strconv.Quote(s), `"`)
	}
	if r := []rune(s); len(r) > maxTitle {
		s = string(r[:maxTitle]) + "…"
	}
	return s
}

// reason is what a page with title calls status: the title without its
// leading code, or the status's text.
func reason(status int, title string) string {
	code := strconv.Itoa(status)
	if rest, ok := strings.CutPrefix(title, code); ok && strings.TrimSpace(rest) != "" {
		return strings.TrimSpace(strings.TrimLeft(rest, " :-–"))
	}
	return http.StatusText(status)
}

// documentMessage reports whether s is one of the document's messages (or
// starts as one of its prefixed messages does).
func documentMessage(s string) bool {
	if _, ok := messageRows[s]; ok {
		return true
	}
	return strings.HasPrefix(s, AccessDeniedPrefix) || strings.HasPrefix(s, PricePlanPrefix)
}

// String says who answered and what: "a gateway answered 503 Service
// Temporarily Unavailable (Server: nginx/1.22.1), not the API".
func (g Gateway) String() string {
	return fmt.Sprintf("a gateway answered %d %s%s, not the API", g.Status, g.Reason, g.shows())
}

// shows is what the answer shows of the gateway besides its status: its
// Server header, and its title when the reason is not taken from it.
func (g Gateway) shows() string {
	var parts []string
	if g.Server != "" {
		parts = append(parts, "Server: "+g.Server)
	}
	if g.Title != "" && !strings.Contains(g.Title, g.Reason) {
		parts = append(parts, fmt.Sprintf("title %q", g.Title))
	}
	if len(parts) == 0 {
		parts = append(parts, "no Server header")
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// Advice says what to change so that the API answers: the run's rate, the
// client certificate, a header the gateway wants, or the target's URL. The
// flags it names (--rate, --client-cert, --client-key, -H, --target) are
// those of the suite, the generated mode and the load tester alike.
func (g Gateway) Advice() string {
	title := strings.ToLower(g.Title + " " + g.Reason)
	switch {
	case g.Status == http.StatusServiceUnavailable || g.Status == http.StatusTooManyRequests:
		return "throttling without Retry-After? lower --rate, or have the gateway answer 429 with Retry-After"
	case strings.Contains(title, "certificate"):
		return "the gateway wants a client certificate it trusts: give --client-cert FILE --client-key FILE"
	case g.Status == http.StatusBadGateway:
		return "the gateway got no answer from the API behind it: is the API running, and is it the gateway's upstream?"
	case g.Status == http.StatusGatewayTimeout:
		return "the API behind the gateway did not answer within the gateway's timeout: lower --rate, or raise the gateway's timeout"
	case g.Status == http.StatusUnauthorized || g.Status == http.StatusForbidden || g.Status == http.StatusProxyAuthRequired:
		return "the gateway refused the request: does it want a header of its own (-H 'Name: value') or a client certificate (--client-cert FILE --client-key FILE)?"
	case g.Status == http.StatusNotFound || g.Status == http.StatusMethodNotAllowed:
		return "the gateway has no route for this request: is --target the API's base URL, with its path prefix?"
	case g.Status == http.StatusBadRequest:
		return "the gateway refused the request before the API saw it: does it want a client certificate (--client-cert FILE --client-key FILE) or a header of its own (-H 'Name: value')?"
	}
	return "the page is the gateway's own: check the gateway in front of the API"
}

// Error is String with Advice: the sentence a failure or an incomplete run
// shows.
func (g Gateway) Error() string { return g.String() + ": " + g.Advice() }

// Is makes a Gateway, as an error, match ErrGateway.
func (g Gateway) Is(target error) bool { return target == ErrGateway }

// GatewayError is a run whose answers came mostly from a gateway
// (MostlyGateway): Count of Of answers were a gateway's, the first of them
// Gateway.
type GatewayError struct {
	Gateway
	Count, Of int
}

// Error says how many answers the gateway gave, what it answered and what
// to change.
func (e *GatewayError) Error() string {
	return fmt.Sprintf("a gateway answered %d of %d requests, not the API: %s%s: %s",
		e.Count, e.Of, strconv.Itoa(e.Status)+" "+e.Reason, e.shows(), e.Advice())
}

// Unwrap makes a GatewayError match ErrGateway.
func (e *GatewayError) Unwrap() error { return ErrGateway }

// MostlyGateway reports whether a run whose answers numbered answers got
// gateway of them from a gateway (GatewayAnswer): more than half. Such a
// run did not judge the API: every tool stops it as incomplete (exit 2)
// rather than passing or failing it, once it has counted GatewaySample
// answers.
func MostlyGateway(gateway, answers int) bool {
	return answers > 0 && 2*gateway > answers
}

// GatewaySample is how many answers a run counts before it stops because
// they are mostly a gateway's (MostlyGateway): a gateway that throttles
// lets its burst through first.
const GatewaySample = 20
