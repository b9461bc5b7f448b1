package cli_test

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/cli"
)

func newFlags(out *bytes.Buffer) (*flag.FlagSet, *bool, *string) {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(out)
	strict := fs.Bool("strict", false, "strict")
	tags := fs.String("tags", "", "tags")
	fs.Usage = func() { _, _ = out.WriteString("THE WHOLE HELP\n") }
	return fs, strict, tags
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		args       []string
		positional []string
		strict     bool
		tags       string
	}{
		{"flags after FILE:LINE", []string{"features/payments.feature:37", "--strict", "--tags", "@x"}, []string{"features/payments.feature:37"}, true, "@x"},
		{"flags around two files", []string{"--tags", "@x", "a.feature", "--strict", "b.feature:3"}, []string{"a.feature", "b.feature:3"}, true, "@x"},
		{"after -- everything is positional", []string{"a.feature", "--", "--strict"}, []string{"a.feature", "--strict"}, false, ""},
		{"no positional", []string{"--strict"}, nil, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			fs, strict, tags := newFlags(&out)
			pos, err := cli.Parse(fs, tc.args, "conformance", "usage: conformance [flags] [FILE[:LINE] ...]")
			require.NoError(t, err)
			assert.Equal(t, tc.positional, pos)
			assert.Equal(t, tc.strict, *strict)
			assert.Equal(t, tc.tags, *tags)
			assert.Empty(t, out.String())
		})
	}
}

// TestParseBadFlag: a bad flag is three lines (the error, the usage line,
// see --help), never the whole help; -h is the whole help.
func TestParseBadFlag(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	fs, _, _ := newFlags(&out)
	_, err := cli.Parse(fs, []string{"a.feature:3", "--stirct"}, "conformance", "usage: conformance [flags] [FILE[:LINE] ...]")
	var ue *cli.UsageError
	require.True(t, errors.As(err, &ue), "%v", err)
	assert.Equal(t, "flag provided but not defined: -stirct\nusage: conformance [flags] [FILE[:LINE] ...]\nsee conformance --help for every flag", err.Error())
	assert.Empty(t, out.String(), "the flag package prints nothing itself")

	_, err = cli.Parse(fs, []string{"-h"}, "conformance", "usage")
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.True(t, strings.Contains(out.String(), "THE WHOLE HELP"))
}
