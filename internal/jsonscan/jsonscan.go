// Package jsonscan reads JSON in one pass without reflection, for the two
// hot paths that cannot pay encoding/json's cost on every message: the
// reference's reading of a create-payment body (reference/httpapi) and the
// load tester's reading of a created payment's answer (loadtest). Both read
// only what is plainly what encoding/json would decode, and leave anything
// else to encoding/json: a Scanner validates as encoding/json does (RFC 8259;
// bytes outside ASCII are taken as they are), and every method returns false
// on anything invalid or anything it does not read, so that its caller can
// fall back without a doubt.
package jsonscan

import "math"

// Scanner walks one JSON text.
type Scanner struct {
	b     []byte
	i     int
	depth int
}

// New returns a Scanner at the start of b.
func New(b []byte) Scanner { return Scanner{b: b} }

// maxDepth bounds the nesting a Scanner follows (encoding/json's own limit
// is 10,000; deeper texts are left to it).
const maxDepth = 100

// Space skips JSON whitespace.
func (s *Scanner) Space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// End skips whitespace and reports whether nothing follows.
func (s *Scanner) End() bool {
	s.Space()
	return s.i == len(s.b)
}

// peek is the next byte, 0 at the end.
func (s *Scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// Object walks an object, calling member with each key, the Scanner then
// at the key's value, which member must read. A key with an escape stops
// the walk (encoding/json would match it by its unescaped text), as does
// member returning false: Object then returns false.
func (s *Scanner) Object(member func(key []byte) bool) bool {
	s.Space()
	if s.peek() != '{' || s.depth >= maxDepth {
		return false
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	s.Space()
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		key, plain, ok := s.str()
		if !ok || !plain {
			return false
		}
		s.Space()
		if s.peek() != ':' {
			return false
		}
		s.i++
		s.Space()
		if !member(key) {
			return false
		}
		s.Space()
		switch s.peek() {
		case ',':
			s.i++
			s.Space()
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string and returns its bytes between the quotes, and whether
// it has no escapes (its bytes are then its value, up to UTF-8 repair).
func (s *Scanner) str() (raw []byte, plain, ok bool) {
	if s.peek() != '"' {
		return nil, false, false
	}
	start := s.i + 1
	plain = true
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], plain, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			plain = false
			j++
			if j >= len(s.b) {
				return nil, false, false
			}
			switch s.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := hex4(s.b, j+1); !ok {
					return nil, false, false
				}
				j += 4
			default:
				return nil, false, false
			}
		}
	}
	return nil, false, false
}

// hex4 reads the four hex digits of a \u escape at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}

// Text reads a string that decodes to its own bytes: printable ASCII
// without an escape.
func (s *Scanner) Text() ([]byte, bool) {
	v, plain, ok := s.str()
	if !ok || !plain {
		return nil, false
	}
	for _, c := range v {
		if c > 0x7e {
			return nil, false
		}
	}
	return v, true
}

// literal reads word (true, false or null).
func (s *Scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// Null reads null if it comes next, and reports whether it did.
func (s *Scanner) Null() bool { return s.peek() == 'n' && s.literal("null") }

// Bool reads true or false (not null).
func (s *Scanner) Bool() (v, ok bool) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, false
}

// Int64 reads an integer literal that fits an int64 (no fraction, no
// exponent: encoding/json refuses those for an int64).
func (s *Scanner) Int64() (int64, bool) {
	neg := s.peek() == '-'
	if neg {
		s.i++
	}
	if s.peek() == '0' && s.i+1 < len(s.b) && '0' <= s.b[s.i+1] && s.b[s.i+1] <= '9' {
		return 0, false // a leading zero is not JSON
	}
	var n uint64
	digits := 0
	for ; s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9'; s.i++ {
		d := uint64(s.b[s.i] - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
		digits++
	}
	if digits == 0 || (s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E')) {
		return 0, false
	}
	switch {
	case !neg && n <= math.MaxInt64:
		return int64(n), true
	case neg && n <= math.MaxInt64+1:
		return int64(-n), true //nolint:gosec // -2^63 wraps to itself, as intended
	}
	return 0, false
}

// number reads any JSON number.
func (s *Scanner) number() bool {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.peek() == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *Scanner) digits() int {
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// Skip reads one value of any kind.
func (s *Scanner) Skip() bool {
	switch s.peek() {
	case '{':
		return s.Object(func([]byte) bool { return s.Skip() })
	case '[':
		return s.elements()
	case '"':
		_, _, ok := s.str()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return s.number()
}

// elements reads an array.
func (s *Scanner) elements() bool {
	if s.depth >= maxDepth {
		return false
	}
	s.i++ // '['
	s.depth++
	defer func() { s.depth-- }()
	s.Space()
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		s.Space()
		if !s.Skip() {
			return false
		}
		s.Space()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// Plain reports whether encoding/json writes s as it is between quotes:
// printable ASCII without a quote, a backslash or the characters it
// escapes for HTML (the writer's side of Text: such a string reads back as
// itself).
func Plain(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// LoneSurrogate reports whether a JSON text holds a \u escape of a UTF-16
// surrogate that is not part of a high-low pair (encoding/json decodes it
// as U+FFFD, so that two different strings read the same).
func LoneSurrogate(b []byte) bool {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 >= len(b) {
				return false
			}
			if b[i+1] != 'u' {
				i++ // a one-character escape
				continue
			}
			u, ok := hex4(b, i+2)
			if !ok {
				return false // malformed: not this function's to judge
			}
			i += 5
			switch {
			case u >= 0xDC00 && u <= 0xDFFF:
				return true // a low surrogate alone
			case u >= 0xD800 && u <= 0xDBFF:
				if i+6 >= len(b) || b[i+1] != '\\' || b[i+2] != 'u' {
					return true
				}
				low, ok := hex4(b, i+3)
				if !ok || low < 0xDC00 || low > 0xDFFF {
					return true
				}
				i += 6
			}
		}
	}
	return false
}
