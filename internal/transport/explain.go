package transport

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// Explain returns err with a sentence saying why the TLS connection to the
// target failed and what to change, naming the files of the flags and what
// the target presented; any other error is returned as it is. It reads
// errors.As through the wrapping of net/http and the tools.
func (o *Options) Explain(err error) error {
	if err == nil {
		return nil
	}
	if why := o.why(err); why != "" {
		return fmt.Errorf("%w; %s", err, why)
	}
	return err
}

func (o *Options) why(err error) string {
	var verify *tls.CertificateVerificationError
	if errors.As(err, &verify) && len(verify.UnverifiedCertificates) > 0 {
		return o.whyUnverified(verify.UnverifiedCertificates[0], verify.Err)
	}
	var record tls.RecordHeaderError
	if errors.As(err, &record) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") { // net/http's words for a RecordHeaderError
		return "the target does not speak TLS at that address: is its URL https:// where it should be http://?"
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" {
		return o.whyRefused(op.Err.Error())
	}
	return ""
}

// whyUnverified says why the certificate the target presented, leaf, did
// not verify.
func (o *Options) whyUnverified(leaf *x509.Certificate, err error) string {
	presented := fmt.Sprintf("the target presented a certificate for %s issued by %s", name(leaf.Subject.String()), name(leaf.Issuer.String()))
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &unknown) && o.CACert != "":
		return fmt.Sprintf("%s, which the CA of --ca-cert %s (%s) did not sign: give --ca-cert the CA that issued the target's certificate",
			presented, o.CACert, o.caNames())
	case errors.As(err, &unknown):
		return presented + ", which no CA this system trusts signed: give that CA with --ca-cert FILE (or, for a throwaway test server only, --insecure-skip-verify)"
	case errors.As(err, &host):
		return fmt.Sprintf("%s, valid for %s, not for %q: use a target URL with one of those names", presented, certNames(leaf), host.Host)
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return fmt.Sprintf("%s, valid from %s to %s, not now (%s)", presented,
			leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339), time.Now().UTC().Format(time.RFC3339))
	}
	return presented + ", which does not verify"
}

// whyRefused says why the target ended the handshake with alert (such as
// "tls: certificate required"): about the client certificate, when it is.
func (o *Options) whyRefused(alert string) string {
	switch alert {
	case "tls: certificate required", "tls: bad certificate", "tls: unknown certificate authority", "tls: expired certificate":
	default:
		return ""
	}
	if o.ClientCert == "" {
		return "the target asks for a client certificate (mutual TLS): give --client-cert FILE --client-key FILE"
	}
	certs, err := readCerts(o.ClientCert)
	if err != nil {
		return fmt.Sprintf("the target refused the client certificate of --client-cert %s", o.ClientCert)
	}
	return fmt.Sprintf("the target refused the client certificate of --client-cert %s (for %s, issued by %s): it wants one signed by a CA it trusts, and valid now",
		o.ClientCert, name(certs[0].Subject.String()), name(certs[0].Issuer.String()))
}

// caNames names the certificates of --ca-cert.
func (o *Options) caNames() string {
	certs, err := readCerts(o.CACert)
	if err != nil {
		return err.Error()
	}
	names := make([]string, len(certs))
	for i, c := range certs {
		names[i] = name(c.Subject.String())
	}
	return strings.Join(names, ", ")
}

// certNames are the names and addresses a certificate is valid for.
func certNames(c *x509.Certificate) string {
	names := append([]string{}, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		return "no name"
	}
	return strings.Join(names, ", ")
}

// name quotes a distinguished name, or says there is none.
func name(dn string) string {
	if dn == "" {
		return "(no name)"
	}
	return fmt.Sprintf("%q", dn)
}
