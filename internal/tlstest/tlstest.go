// Package tlstest makes certificate authorities and the certificates they
// sign, written as PEM files into a test's temporary directory, for the
// tests that serve or reach the reference over HTTPS and mutual TLS.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority of one test.
type CA struct {
	Cert     *x509.Certificate
	CertFile string // the CA's certificate, PEM
	key      *ecdsa.PrivateKey
	dir      string
}

// NewCA makes a CA whose common name is name, valid for a day, and writes
// its certificate to name+".pem" in a temporary directory of tb.
func NewCA(tb testing.TB, name string) *CA {
	tb.Helper()
	key := newKey(tb)
	tmpl := template(name)
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	ca := &CA{Cert: cert, key: key, dir: tb.TempDir()}
	ca.CertFile = ca.write(tb, name+".pem", "CERTIFICATE", der)
	return ca
}

// Server issues a server certificate for 127.0.0.1 and localhost and
// returns its certificate and key files.
func (ca *CA) Server(tb testing.TB, name string) (certFile, keyFile string) {
	tb.Helper()
	tmpl := template(name)
	tmpl.DNSNames = []string{"localhost"}
	tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	return ca.issue(tb, name, tmpl)
}

// Client issues a client certificate and returns its certificate and key
// files.
func (ca *CA) Client(tb testing.TB, name string) (certFile, keyFile string) {
	tb.Helper()
	tmpl := template(name)
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return ca.issue(tb, name, tmpl)
}

func (ca *CA) issue(tb testing.TB, name string, tmpl *x509.Certificate) (certFile, keyFile string) {
	tb.Helper()
	key := newKey(tb)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		tb.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	return ca.write(tb, name+".pem", "CERTIFICATE", der), ca.write(tb, name+"-key.pem", "PRIVATE KEY", keyDER)
}

func (ca *CA) write(tb testing.TB, file, blockType string, der []byte) string {
	tb.Helper()
	path := filepath.Join(ca.dir, file)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return key
}

// template is a certificate named name, valid from an hour ago for a day.
func template(name string) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
}
