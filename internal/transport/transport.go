// Package transport is how the suite, the generated mode and the load
// tester reach a target beyond its URL and its profile: the TLS they speak
// to it (a private CA, a client certificate for mutual TLS, or no
// verification at all), the extra headers a gateway in front of it wants,
// and how long they wait for it to come up. Options holds the flags, the
// same for the three tools (Register); TLSConfig, Transport and Wrap turn
// them into what an HTTP client needs; Explain says in words why a TLS
// handshake failed; Wait polls a preflight check until the target passes
// it.
package transport

import (
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Options are the flags of a connection to a target. The zero value
// verifies the target's certificate against the system's CAs, presents no
// client certificate, adds no header and does not wait.
type Options struct {
	CACert             string        // --ca-cert: PEM file of the CAs trusted instead of the system's
	ClientCert         string        // --client-cert: PEM certificate presented for mutual TLS
	ClientKey          string        // --client-key: PEM private key of ClientCert
	InsecureSkipVerify bool          // --insecure-skip-verify: accept any certificate
	Headers            http.Header   // -H 'Name: value': added to every request (canonical names)
	WaitForTarget      time.Duration // --wait-for-target: how long to wait for the preflight to pass
}

// Register defines the flags of o on fs, with their help: --ca-cert,
// --client-cert, --client-key, --insecure-skip-verify, -H (and --header),
// --wait-for-target. A header the API sets itself is refused as the flag
// is parsed (a usage error).
func (o *Options) Register(fs *flag.FlagSet) {
	fs.StringVar(&o.CACert, "ca-cert", "", "PEM file of the CA (or CAs) that signed the target's certificate, trusted instead of the system's CAs (a private CA)")
	fs.StringVar(&o.ClientCert, "client-cert", "", "PEM certificate to present to a target that asks for one (mutual TLS); needs --client-key")
	fs.StringVar(&o.ClientKey, "client-key", "", "PEM private key of --client-cert")
	fs.BoolVar(&o.InsecureSkipVerify, "insecure-skip-verify", false, "accept any certificate the target presents, for any name (a throwaway test server only: the report says it)")
	header := func(s string) error {
		name, value, err := ParseHeader(s)
		if err != nil {
			return err
		}
		if o.Headers == nil {
			o.Headers = http.Header{}
		}
		o.Headers.Add(name, value)
		return nil
	}
	const help = "extra header `'Name: value'` on every request, as a gateway in front of the target may want (repeatable); the API's own Authorization, X-SECRET-KEY and Content-Type are refused"
	fs.Func("H", help, header)
	fs.Func("header", "same as -H", header)
	fs.DurationVar(&o.WaitForTarget, "wait-for-target", 0, "wait up to this long for the target to pass the preflight check, trying again and again, as CI needs for a server it has just started (0: try once)")
}

// refused are the headers -H may not set, and why.
var refused = map[string]string{
	"Authorization":     "the API's own header: the profile's tokens fill it",
	"X-Secret-Key":      "the API's own header: the profile's secret_key fills it",
	"Content-Type":      "the API's own header: each request says what its body is",
	"Host":              "HTTP sets it from the target's URL",
	"Content-Length":    "HTTP sets it from the body",
	"Transfer-Encoding": "HTTP sets it from the body",
	"Connection":        "HTTP manages the connection",
}

// ParseHeader reads -H's "Name: value" and returns the name in canonical
// form and the value without surrounding spaces. A name that is not an HTTP
// token, a value with a line break, or a header the API or HTTP sets
// itself is an error.
func ParseHeader(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok || name == "":
		return "", "", fmt.Errorf("%q: want 'Name: value'", s)
	case !httpguts.ValidHeaderFieldName(name):
		return "", "", fmt.Errorf("%q: %q is not a header name", s, name)
	case !httpguts.ValidHeaderFieldValue(value):
		return "", "", fmt.Errorf("%q: the value holds a line break or a control character", s)
	}
	name = http.CanonicalHeaderKey(name)
	if why, ok := refused[name]; ok {
		return "", "", fmt.Errorf("%q: %s cannot be set with -H: %s", s, name, why)
	}
	return name, value, nil
}

// check refuses flags that contradict each other.
func (o *Options) check() error {
	switch {
	case (o.ClientCert == "") != (o.ClientKey == ""):
		return errors.New("--client-cert and --client-key go together: give both, or neither")
	case o.InsecureSkipVerify && o.CACert != "":
		return errors.New("--insecure-skip-verify accepts any certificate, so --ca-cert would be ignored: give one of them")
	case o.WaitForTarget < 0:
		return fmt.Errorf("--wait-for-target %s: want a duration, or 0 to try once", o.WaitForTarget)
	}
	return nil
}

// TLSConfig is the TLS configuration of a client of the target: TLS 1.2 or
// later, the CAs of --ca-cert (instead of the system's) or none checked
// with --insecure-skip-verify, and the certificate of --client-cert. An
// error names the flag and its file; the tools make it a usage error.
func (o *Options) TLSConfig() (*tls.Config, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	// InsecureSkipVerify is asked for by name, and Warning says it.
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.InsecureSkipVerify}
	if o.CACert != "" {
		pool, err := CertPool(o.CACert)
		if err != nil {
			return nil, fmt.Errorf("--ca-cert %s: %w", o.CACert, err)
		}
		cfg.RootCAs = pool
	}
	if o.ClientCert != "" {
		pair, err := tls.LoadX509KeyPair(o.ClientCert, o.ClientKey)
		if err != nil {
			return nil, fmt.Errorf("--client-cert %s --client-key %s: %w", o.ClientCert, o.ClientKey, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// Transport is an HTTP transport to the target: net/http's default one
// with TLSConfig, adding the headers of -H to every request.
func (o *Options) Transport() (http.RoundTripper, error) {
	cfg, err := o.TLSConfig()
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg
	return o.Wrap(tr), nil
}

// Wrap returns rt adding the headers of -H to every request (rt itself
// when there are none). A header of -H replaces what the request had under
// its name.
func (o *Options) Wrap(rt http.RoundTripper) http.RoundTripper {
	if len(o.Headers) == 0 {
		return rt
	}
	return &withHeaders{next: rt, headers: o.Headers.Clone()}
}

// Warning is the sentence a report shows when the run did not verify the
// target's certificate, or "".
func (o *Options) Warning() string {
	if !o.InsecureSkipVerify {
		return ""
	}
	return "INSECURE: --insecure-skip-verify: the target's certificate was not verified; anyone between this run and the target could have answered"
}

// Args are the flags that give o's TLS again, for a command line a run
// prints to be run again (a reproduction): the files' names, never their
// content. The headers of -H are left out: their values may be secrets,
// and a printed command lands in CI logs.
func (o *Options) Args() []string {
	var args []string
	if o.CACert != "" {
		args = append(args, "--ca-cert", o.CACert)
	}
	if o.ClientCert != "" {
		args = append(args, "--client-cert", o.ClientCert, "--client-key", o.ClientKey)
	}
	if o.InsecureSkipVerify {
		args = append(args, "--insecure-skip-verify")
	}
	return args
}

// withHeaders adds headers to every request it sends on.
type withHeaders struct {
	next    http.RoundTripper
	headers http.Header
}

func (w *withHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context()) // a RoundTripper must not change its request
	for name, values := range w.headers {
		req.Header[name] = values
	}
	resp, err := w.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	return Decoded(resp)
}

// Decoded is resp with its body as the target meant it. net/http
// decompresses only the compression it asked for itself; a user who adds
// -H 'Accept-Encoding: gzip' (a gateway that compresses, a check of it)
// makes it ask for nothing, and the body would be read compressed: the
// preflight and every judge would read "\x1f\x8b…" as a body that is not
// JSON. A gzip body is decompressed as it is read, its Content-Encoding
// and Content-Length removed (resp.Uncompressed set), as net/http does; a
// body of another coding is left as it came, for the judges to name.
func Decoded(resp *http.Response) (*http.Response, error) {
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "gzip", "x-gzip":
	default:
		return resp, nil
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		return resp, nil
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("the answer says Content-Encoding %q, but its body is not gzip: %w", resp.Header.Get("Content-Encoding"), err)
	}
	resp.Body = gzipBody{Reader: zr, body: resp.Body}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
	return resp, nil
}

// gzipBody reads a gzip body and closes the body under it.
type gzipBody struct {
	*gzip.Reader
	body io.ReadCloser
}

func (g gzipBody) Close() error { return g.body.Close() }

// CertPool reads the PEM certificates of file into a pool.
func CertPool(file string) (*x509.CertPool, error) {
	certs, err := readCerts(file)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// readCerts reads the PEM certificates of file; a file with none is an
// error.
func readCerts(file string) ([]*x509.Certificate, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("a certificate in it cannot be read: %w", err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New(`no certificate in it: want PEM ("-----BEGIN CERTIFICATE-----")`)
	}
	return certs, nil
}
