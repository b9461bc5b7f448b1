package jsonscan

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzScanner: a Scanner accepts only what encoding/json accepts, and reads
// an integer as strconv does.
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{`{"a":[1,-2.5e+3,"b\"\\\u00e9",[],{},true,false,null]}`, `{"a":1,}`, `[1,]`, `01`, `-`, `1.`,
		`"\ud800"`, `"a` + "\t" + `"`, `9223372036854775807`, `-9223372036854775808`, `9223372036854775808`, ` {} `, `{"\u0061":1}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := New([]byte(text))
		s.Space()
		if s.Skip() && s.End() && !json.Valid([]byte(text)) {
			t.Fatalf("the scanner accepted %q, which is not JSON", text)
		}
		s = New([]byte(text))
		if n, ok := s.Int64(); ok && s.End() {
			want, err := strconv.ParseInt(strings.TrimRight(text, " \t\r\n"), 10, 64)
			if err != nil || n != want {
				t.Fatalf("Int64 read %q as %d; strconv: %d, %v", text, n, want, err)
			}
		}
	})
}

func TestScanner(t *testing.T) {
	t.Parallel()
	s := New([]byte(` {"n":-12, "t":"ab", "b":false, "z":null, "skip":[{"x":"\u00e9"}]} `))
	got := map[string]any{}
	ok := s.Object(func(key []byte) bool {
		switch string(key) {
		case "n":
			n, ok := s.Int64()
			got["n"] = n
			return ok
		case "t":
			v, ok := s.Text()
			got["t"] = string(v)
			return ok
		case "b":
			v, ok := s.Bool()
			got["b"] = v
			return ok
		case "z":
			got["z"] = nil
			return s.Null()
		}
		return s.Skip()
	})
	assert.True(t, ok && s.End())
	assert.Equal(t, map[string]any{"n": int64(-12), "t": "ab", "b": false, "z": nil}, got)

	for _, text := range []string{`"a\u0041"`, `"é"`, `"a` + "\x7f" + `"`, `1`} {
		s := New([]byte(text))
		_, ok := s.Text()
		assert.False(t, ok, "Text read %q", text)
	}
	for _, text := range []string{`{"\u0061":1}`, `{"a":1,"b":}`, `{"a" 1}`} {
		s := New([]byte(text))
		assert.False(t, s.Object(func([]byte) bool { return s.Skip() }), "Object read %q", text)
	}
	s = New([]byte(strconv.FormatUint(math.MaxInt64+1, 10)))
	_, ok = s.Int64()
	assert.False(t, ok, "past int64")
}

func TestLoneSurrogate(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		`{"a":"\ud83d\ude00"}`: false, `{"a":"\ud83d"}`: true, `{"a":"\ude00"}`: true, `{"a":"\ud83d\u0041"}`: true,
		`{"a":"\\ud83d"}`: false, `{"a":"ok"}`: false, `{"\udc00":1}`: true,
	} {
		assert.Equal(t, want, LoneSurrogate([]byte(text)), text)
	}
}

// TestPlain: what Plain vouches for, encoding/json writes as it is; it
// vouches for none of the characters encoding/json escapes.
func TestPlain(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"conf-abc 081234567890", "a<b", "a&b", `a"b`, `a\b`, "é", "a\nb", "\x7f", "\u2028"} {
		b, err := json.Marshal(s)
		assert.NoError(t, err)
		if Plain(s) {
			assert.Equal(t, `"`+s+`"`, string(b))
		}
		assert.Equal(t, s == "conf-abc 081234567890", Plain(s), s)
	}
}
