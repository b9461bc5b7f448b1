package tlstest_test

import (
	"crypto/tls"
	"crypto/x509"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/tlstest"
)

// TestCertificatesVerifyAgainstTheirCAOnly: a certificate verifies against
// the CA that signed it, for its use, and not against another CA.
func TestCertificatesVerifyAgainstTheirCAOnly(t *testing.T) {
	t.Parallel()
	ca, other := tlstest.NewCA(t, "Test CA"), tlstest.NewCA(t, "Other CA")
	for _, tc := range []struct {
		name  string
		issue func(testing.TB, string) (string, string)
		usage x509.ExtKeyUsage
		host  string
	}{
		{"server", ca.Server, x509.ExtKeyUsageServerAuth, "127.0.0.1"},
		{"client", ca.Client, x509.ExtKeyUsageClientAuth, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pair, err := tls.LoadX509KeyPair(tc.issue(t, tc.name))
			require.NoError(t, err)
			verify := func(root *x509.Certificate) error {
				pool := x509.NewCertPool()
				pool.AddCert(root)
				_, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: tc.host, KeyUsages: []x509.ExtKeyUsage{tc.usage}})
				return err
			}
			assert.NoError(t, verify(ca.Cert))
			var unknown x509.UnknownAuthorityError
			assert.ErrorAs(t, verify(other.Cert), &unknown)
		})
	}
}
