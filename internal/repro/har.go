package repro

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/profiles"
)

// Exchange is one request of a failure and its answer, as a HAR file
// (WriteHAR) holds it.
type Exchange struct {
	Sent    time.Time
	Elapsed time.Duration
	Method  string
	URL     string
	// ReqHeader and RespHeader are the headers as sent and received: the
	// secret ones are masked as the console masks them (MaskedHeaders).
	ReqHeader  http.Header
	ReqBody    []byte
	Status     int // 0: no answer
	RespHeader http.Header
	RespBody   []byte
}

// MaskedHeaders are the headers whose values a HAR file masks
// (profiles.Mask), as the console does: the secret key and the token.
var MaskedHeaders = []string{"Authorization", "X-Secret-Key"}

// WriteHAR writes exchanges as a HAR 1.2 log (the format a browser's
// network panel exports and imports), the secret headers masked, and every
// secret of prof masked wherever else it appears (a URL, a body: the token
// that provisioning a profile's customer again answers).
func WriteHAR(w io.Writer, creator string, prof *profiles.Profile, exchanges []Exchange) error {
	var pairs []string
	for _, sc := range prof.Secrets() {
		if sc.Value != "" {
			pairs = append(pairs, sc.Value, profiles.Mask(sc.Value))
		}
	}
	mask := strings.NewReplacer(pairs...)
	entries := make([]harEntry, 0, len(exchanges))
	for _, ex := range exchanges {
		entries = append(entries, harEntryOf(ex, mask))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"log": harLog{Version: "1.2", Creator: harCreator{Name: creator, Version: "1"}, Entries: entries}})
}

type harLog struct {
	Version string     `json:"version"`
	Creator harCreator `json:"creator"`
	Entries []harEntry `json:"entries"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harEntry struct {
	Started  string      `json:"startedDateTime"`
	Time     float64     `json:"time"`
	Request  harRequest  `json:"request"`
	Response harResponse `json:"response"`
	Cache    struct{}    `json:"cache"`
	Timings  harTimings  `json:"timings"`
}

type harRequest struct {
	Method      string     `json:"method"`
	URL         string     `json:"url"`
	HTTPVersion string     `json:"httpVersion"`
	Cookies     []struct{} `json:"cookies"`
	Headers     []harPair  `json:"headers"`
	QueryString []harPair  `json:"queryString"`
	PostData    *harBody   `json:"postData,omitempty"`
	HeadersSize int        `json:"headersSize"`
	BodySize    int        `json:"bodySize"`
}

type harResponse struct {
	Status      int        `json:"status"`
	StatusText  string     `json:"statusText"`
	HTTPVersion string     `json:"httpVersion"`
	Cookies     []struct{} `json:"cookies"`
	Headers     []harPair  `json:"headers"`
	Content     harContent `json:"content"`
	RedirectURL string     `json:"redirectURL"`
	HeadersSize int        `json:"headersSize"`
	BodySize    int        `json:"bodySize"`
}

type harPair struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harBody struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

type harContent struct {
	Size     int    `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

type harTimings struct {
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// harEntryOf is ex as a HAR entry: its whole time is the wait (the client
// does not time sending and receiving apart); an exchange without an
// answer has status 0, as browsers write a request that failed.
func harEntryOf(ex Exchange, mask *strings.Replacer) harEntry {
	ms := float64(ex.Elapsed.Microseconds()) / 1000
	e := harEntry{Started: ex.Sent.UTC().Format(time.RFC3339Nano), Time: ms, Timings: harTimings{Wait: ms},
		Request: harRequest{Method: ex.Method, URL: mask.Replace(ex.URL), HTTPVersion: "HTTP/1.1", Cookies: []struct{}{}, Headers: harHeaders(ex.ReqHeader),
			QueryString: []harPair{}, HeadersSize: -1, BodySize: len(ex.ReqBody)},
		Response: harResponse{Status: ex.Status, StatusText: http.StatusText(ex.Status), HTTPVersion: "HTTP/1.1", Cookies: []struct{}{},
			Headers: harHeaders(ex.RespHeader), HeadersSize: -1, BodySize: len(ex.RespBody),
			Content: harContent{Size: len(ex.RespBody), MimeType: ex.RespHeader.Get("Content-Type"), Text: mask.Replace(string(ex.RespBody))}},
	}
	if u, err := url.Parse(ex.URL); err == nil {
		for name, values := range u.Query() {
			for _, v := range values {
				e.Request.QueryString = append(e.Request.QueryString, harPair{Name: name, Value: mask.Replace(v)})
			}
		}
		slices.SortStableFunc(e.Request.QueryString, func(a, b harPair) int { return strings.Compare(a.Name, b.Name) })
	}
	if ex.ReqBody != nil {
		e.Request.PostData = &harBody{MimeType: ex.ReqHeader.Get("Content-Type"), Text: mask.Replace(string(ex.ReqBody))}
	}
	if ex.Status == 0 {
		e.Response.BodySize, e.Response.HTTPVersion = -1, ""
	}
	return e
}

// harHeaders is h as HAR's pairs, sorted by name, the secret ones masked.
func harHeaders(h http.Header) []harPair {
	out := []harPair{}
	for name, values := range h {
		for _, v := range values {
			if slices.Contains(MaskedHeaders, http.CanonicalHeaderKey(name)) {
				v = profiles.Mask(v)
			}
			out = append(out, harPair{Name: name, Value: v})
		}
	}
	slices.SortStableFunc(out, func(a, b harPair) int { return strings.Compare(a.Name, b.Name) })
	return out
}
