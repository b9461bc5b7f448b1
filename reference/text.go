package reference

import (
	"strings"
	"unicode"
)

// blank reports whether s holds nothing a person can see: only white space
// and invisible characters (format characters such as U+200B ZERO WIDTH
// SPACE or U+FEFF, and the Hangul fillers). Such a value counts as empty.
func blank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && !invisible(r) {
			return false
		}
	}
	return true
}

func invisible(r rune) bool {
	switch r {
	case '\u115F', '\u1160', '\u3164', '\uFFA0', '\u2800':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// hasControl reports whether s holds a control character (C0, DEL or C1),
// which no id or name of the document may carry.
func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}
