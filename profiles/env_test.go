package profiles

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envOf is a getenv of the variables vars.
func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// writeProfile writes yaml into a profile file of a temporary directory.
func writeProfile(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "target.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o600))
	return path
}

// TestLoadEnvTakesSecretsFromTheEnvironment: every ${NAME} of the profile,
// at any depth and inside other text, is the variable's value; a value
// without one is kept as written.
func TestLoadEnvTakesSecretsFromTheEnvironment(t *testing.T) {
	t.Parallel()
	path := writeProfile(t, `base_url: https://${STAGING_HOST}/api
secret_key: ${PARTNER_SECRET_KEY}
main_token: ${PARTNER_MAIN_TOKEN}
operator_team: Kemitraan $5
funded_customer:
  token: ${FUNDED_TOKEN}
load_customers:
  - token: plain-token
  - token: ${LOAD_TOKEN_2}
second_partner:
  secret_key: ${SECOND_KEY}
  main_token: ${SECOND_TOKEN}
`)
	p, err := LoadEnv(path, envOf(map[string]string{
		"STAGING_HOST": "staging.example.com", "PARTNER_SECRET_KEY": "sk-from-ci", "PARTNER_MAIN_TOKEN": "tok-main",
		"FUNDED_TOKEN": "tok-funded", "LOAD_TOKEN_2": "tok-load-2", "SECOND_KEY": "sk-second", "SECOND_TOKEN": "tok-second",
	}))
	require.NoError(t, err)
	assert.Equal(t, "https://staging.example.com/api", p.BaseURL)
	assert.Equal(t, "sk-from-ci", p.SecretKey)
	assert.Equal(t, "tok-main", p.MainToken)
	assert.Equal(t, "Kemitraan $5", p.OperatorTeam)
	assert.Equal(t, "tok-funded", p.FundedCustomer.Token)
	assert.Equal(t, []Customer{{Token: "plain-token"}, {Token: "tok-load-2"}}, p.LoadCustomers)
	assert.Equal(t, &Partner{SecretKey: "sk-second", MainToken: "tok-second"}, p.SecondPartner)
	require.NoError(t, p.Validate())
}

// TestLoadEnvRefusesAMissingVariable: a variable that is not set, or is
// empty, is a profile error naming the variable and the key, never an
// empty secret; so is a malformed reference. The error never holds a
// value of the environment.
func TestLoadEnvRefusesAMissingVariable(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"PARTNER_SECRET_KEY": "sk-from-ci", "EMPTY": ""})
	cases := map[string]struct{ yaml, want string }{
		"not set": {"secret_key: ${PARTNER_SECRET_KEY}\nmain_token: ${PARTNER_MAIN_TOKEN}\n",
			"profile: main_token: ${PARTNER_MAIN_TOKEN}: the environment variable PARTNER_MAIN_TOKEN is not set, or is empty"},
		"empty": {"secret_key: ${EMPTY}\n", "profile: secret_key: ${EMPTY}: the environment variable EMPTY is not set, or is empty"},
		"nested": {"second_partner:\n  secret_key: ${PARTNER_SECRET_KEY}\n  main_token: ${SECOND_TOKEN}\n",
			"profile: second_partner.main_token: ${SECOND_TOKEN}: the environment variable SECOND_TOKEN"},
		"in a list":   {"load_customers:\n  - token: ${LOAD_1}\n", "profile: load_customers[0].token: ${LOAD_1}: the environment variable LOAD_1"},
		"bad name":    {"secret_key: ${PARTNER SECRET}\n", "profile: secret_key: ${PARTNER SECRET} is not a reference to an environment variable"},
		"unfinished":  {"secret_key: ${PARTNER_SECRET_KEY\n", `profile: secret_key: a "${" without its "}"`},
		"one of more": {"main_token: Bearer ${PARTNER_SECRET_KEY}${NOPE}\n", "profile: main_token: ${NOPE}: the environment variable NOPE"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := writeProfile(t, tc.yaml)
			p, err := LoadEnv(path, env)
			require.Error(t, err)
			assert.Nil(t, p)
			assert.Contains(t, err.Error(), path+": "+tc.want)
			assert.NotContains(t, err.Error(), "sk-from-ci")
		})
	}
}
