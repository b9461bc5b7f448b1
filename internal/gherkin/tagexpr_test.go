package gherkin

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTagExpressions: Cucumber's and godog's syntaxes select
// the same scenarios; precedence is not > comma > and > or.
func TestTagExpressions(t *testing.T) {
	t.Parallel()
	tags := func(s string) map[string]bool { return tagSet(strings.Fields(s)) }
	cases := []struct {
		expr string
		tags string
		want bool
	}{
		{"", "", true},
		{"@payments", "payments funded", true},
		{"payments", "payments", true},
		{"@payments", "products", false},
		{"@payments and not @funded", "payments funded", false},
		{"@payments && ~@funded", "payments funded", false},
		{"@payments and not @funded", "payments", true},
		{"@payments && ~@funded", "payments", true},
		{"@payments or @products", "products", true},
		{"@payments,@products", "products", true},
		{"@payments || @products", "limits", false},
		{"@a or @b and @c", "a", true}, // and binds tighter than or
		{"(@a or @b) and @c", "a", false},
		{"@a,@b && @c", "a", false}, // comma binds tighter than &&, as in godog
		{"@a,@b && @c", "b c", true},
		{"not (@a or @b)", "c", true},
		{"not not @a", "a", true},
		{"!@a", "a", false},
		{"@payment-methods,@customers&&~@profile-fault", "customers profile-fault", false},
		{"@payment-methods,@customers&&~@profile-fault", "customers", true},
	}
	for _, tc := range cases {
		t.Run(tc.expr+"|"+tc.tags, func(t *testing.T) {
			t.Parallel()
			e, err := parseTagExpr(tc.expr)
			require.NoError(t, err)
			assert.Equal(t, tc.want, e(tags(tc.tags)))
		})
	}
}

// TestMalformedTagExpressions: an error naming the expression, never a panic.
func TestMalformedTagExpressions(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{"@payments &&", "@payments and", "and @a", "(@a", "@a)", "@a & @b", "@a | @b", "not", "@a @b", "@", "@a,", ",@a", "()", "@a or or @b", "~"} {
		t.Run(expr, func(t *testing.T) {
			t.Parallel()
			_, err := parseTagExpr(expr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), `"`+expr+`"`)
		})
	}
}

// FuzzTagExpr: any expression parses or is refused; none panics.
func FuzzTagExpr(f *testing.F) {
	for _, s := range []string{"@a and not (@b or @c)", "@a && ~@b,@c", "((", "@a ||", "not not not @x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := parseTagExpr(s)
		if err == nil {
			_ = e(map[string]bool{"a": true})
		}
	})
}
