package readable

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBodyIndentsAndMarks(t *testing.T) {
	t.Parallel()
	body := []byte(`{"status":true,"message":"OK","data":{"customer":{"id":"7","tags":[],"n":1.50,"x":null,"s":"<a/b>"}}}` + "\n")
	got := Body(body, map[string]string{"/data/customer/id": "wrong type", "/data/customer/s": "here"}, 40)
	assert.Equal(t, `{
  "status": true,
  "message": "OK",
  "data": {
    "customer": {
      "id": "7",   ◀ wrong type
      "tags": [],
      "n": 1.50,
      "x": null,
      "s": "<a/b>"   ◀ here
    }
  }
}`, got)
}

func TestBodyFoldsAroundTheNotes(t *testing.T) {
	t.Parallel()
	var items []string
	for range 30 {
		items = append(items, `{"a":1}`)
	}
	body := []byte(`{"list":[` + strings.Join(items, ",") + `]}`)
	got := Body(body, map[string]string{"/list/20/a": "out of bounds"}, 10)
	lines := strings.Split(got, "\n")
	assert.LessOrEqual(t, len(lines), 14, got)
	assert.Contains(t, got, `"a": 1   ◀ out of bounds`)
	assert.Equal(t, "{", lines[0])
	assert.Contains(t, got, "… ")
	assert.Contains(t, got, " lines …")
	assert.Equal(t, "}", lines[len(lines)-1], got)
}

func TestBodyNotJSONComesBackAsItIs(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Token tidak valid.\n", Body([]byte("Token tidak valid.\n"), nil, 10))
	assert.Equal(t, `{"a":1} {"b":2}`, Body([]byte(`{"a":1} {"b":2}`), nil, 10))
	assert.Equal(t, strings.Repeat("x", 80)+"… (200 bytes in all)", Body([]byte(strings.Repeat("x", 200)), nil, 1))
}
