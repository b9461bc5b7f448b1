package browsertest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/browsertest"
)

// TestErrorsAreSeen proves the browser tests can fail: a console error, an
// uncaught exception and a request refused by the page's content security
// policy all show in Errors.
func TestErrorsAreSeen(t *testing.T) {
	t.Parallel()
	page := filepath.Join(t.TempDir(), "bad.html")
	require.NoError(t, os.WriteFile(page, []byte(`<!DOCTYPE html><html><head>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'">
<link rel="icon" href="data:,"></head><body><p id="x">text</p>
<img src="http://127.0.0.1:1/fetched.png">
<script>console.error("logged on purpose"); throw new Error("thrown on purpose");</script>
</body></html>`), 0o644))
	p := browsertest.Open(t, page)
	assert.Equal(t, "text", browsertest.Eval[string](t, p, `document.getElementById("x").innerText`))
	errs := strings.Join(p.Errors(), "\n")
	assert.Contains(t, errs, "logged on purpose")
	assert.Contains(t, errs, "thrown on purpose")
	assert.Contains(t, errs, "fetched.png", "the blocked fetch is an error")
	png := browsertest.Screenshot(t, p, "bad.png", false)
	assert.Equal(t, "\x89PNG", string(png[:4]))
}
