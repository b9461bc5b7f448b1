package profiles

import (
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// FuzzParse feeds arbitrary bytes to Parse, the reader of every profile a
// user hands to the suite and the load tester. Parse never panics; a parsed
// profile has no trailing slash on base_url, survives a YAML round trip
// unchanged, came from exactly one YAML document, and either fails Validate
// or has every required key; Missing and Available agree for every capability.
func FuzzParse(f *testing.F) {
	f.Add([]byte("base_url: http://127.0.0.1:8080/\nsecret_key: s\nmain_token: t\n"))
	f.Add([]byte("base_url: https://x\nsecret_key: s\nmain_token: t\nload_customers:\n  - token: a\n  - {}\n"))
	f.Add([]byte("base_url: http://x\nfixtures:\n  unprocessable_product_id: abc\n"))
	f.Add([]byte("base_url: http://x\nsecretkey: typo\n"))
	f.Add([]byte("base_url: http://x\nsecret_key: s\nmain_token: t\n---\nbase_url: ["))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte(""))
	f.Add(referenceYAML)

	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			require.Nil(t, p)
			require.True(t, strings.HasPrefix(err.Error(), "profile: "), "error %q does not name the profile", err)
			return
		}
		require.NotNil(t, p)
		assert.False(t, strings.HasSuffix(p.BaseURL, "/"), "base_url %q keeps a trailing slash", p.BaseURL)
		assert.Equal(t, 1, yamlDocuments(data), "Parse accepted input that is not one YAML document")

		if err := p.Validate(); err == nil {
			u, uerr := url.Parse(p.BaseURL)
			require.NoError(t, uerr)
			assert.Contains(t, []string{"http", "https"}, u.Scheme)
			assert.NotEmpty(t, u.Host)
			assert.NotEmpty(t, p.SecretKey)
			assert.NotEmpty(t, p.MainToken)
			for i, c := range p.LoadCustomers {
				assert.NotEmpty(t, c.Token, "load_customers[%d]", i)
			}
		}

		available := map[Capability]bool{}
		for _, c := range p.Available() {
			available[c] = true
		}
		for _, c := range Capabilities() {
			missing := p.Missing(c)
			assert.Equal(t, len(missing) == 0, available[c], "capability %s: Missing %v disagrees with Available", c, missing)
		}
		assert.NotEmpty(t, p.Missing("no-such-capability"))

		// Round trip: what Parse returns, encoded again, parses to the same
		// profile (compared in its encoded form, where nil and empty lists agree).
		out, err := yaml.Marshal(p)
		require.NoError(t, err)
		p2, err := Parse(out)
		require.NoError(t, err, "re-encoded profile does not parse:\n%s", out)
		out2, err := yaml.Marshal(p2)
		require.NoError(t, err)
		assert.Equal(t, string(out), string(out2))
		assert.Equal(t, p.Validate() == nil, p2.Validate() == nil)
	})
}

// yamlDocuments counts the YAML documents in data; -1 when data is not YAML.
func yamlDocuments(data []byte) int {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	n := 0
	for {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			return -1
		}
		n++
	}
}
