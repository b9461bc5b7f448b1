package referencetest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/referencetest"
)

func TestCredentialsAreTheDataSets(t *testing.T) {
	ds, err := reference.DefaultDataset()
	require.NoError(t, err)
	keys := map[string]bool{}
	for _, p := range ds.Partners {
		keys[p.SecretKey] = true
	}
	tokens := map[string]bool{}
	for _, a := range ds.Accounts {
		tokens[a.Token] = true
	}
	for _, k := range []string{referencetest.KeyNusantara, referencetest.KeyWarung, referencetest.KeyNonaktif} {
		assert.True(t, keys[k], "secret key %s", k)
	}
	for _, tok := range []string{referencetest.TokMain, referencetest.TokFunded, referencetest.TokSplit, referencetest.TokEmpty,
		referencetest.TokBroken, referencetest.TokWarung, referencetest.TokWarungC, referencetest.TokNonaktif} {
		assert.True(t, tokens[tok], "token %s", tok)
	}
}
