package steps

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNationalPhone: the forms of one Indonesian number compare equal, and
// different numbers do not.
func TestNationalPhone(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"national", "081234567890", "081234567890"},
		{"spaces and dashes", "0812-3456 7890", "081234567890"},
		{"plus country code", "+6281234567890", "081234567890"},
		{"country code", "6281234567890", "081234567890"},
		{"country code with spaces", "+62 812-3456-7890", "081234567890"},
		{"another number", "081234567891", "081234567891"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, nationalPhone(tc.in))
		})
	}
}
