package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/browsertest"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/steps/stepstest"
)

// TestLivingDocsInABrowser opens the living documentation in headless
// Chromium: its own title, no outcome badge, no outcome filter, no console
// error; one box explains readings and links docs/conformance-readings.md;
// the section 7 tables hold every row of the document, each proved by
// rules of the page; quoted messages render as code. The screenshot is the
// README's (docs/living-docs.png with $CONFORMANCE_SCREENSHOTS).
func TestLivingDocsInABrowser(t *testing.T) {
	t.Parallel()
	var page bytes.Buffer
	require.NoError(t, report.WriteLivingDocs(&page, stepstest.Features(t, features.FS), nil))
	path := filepath.Join(t.TempDir(), report.FileLivingDocs)
	require.NoError(t, os.WriteFile(path, page.Bytes(), 0o644))

	p := browsertest.Open(t, path)
	assert.Empty(t, p.Errors(), "console errors")
	assert.Equal(t, "Partner Commerce API v2 — living documentation", browsertest.Eval[string](t, p, `document.title`))
	assert.Zero(t, browsertest.Eval[int](t, p, `document.querySelectorAll(".badge, .run, select, #filters").length`), "no outcome badge or filter")
	assert.Equal(t, 1, browsertest.Eval[int](t, p, `document.querySelectorAll("#readings-box").length`))
	assert.Contains(t, browsertest.Eval[string](t, p, `document.querySelector("#readings-box a").href`), "docs/conformance-readings.md")
	assert.Greater(t, browsertest.Eval[int](t, p, `document.querySelectorAll("article.rule").length`), 40)

	rows := contract.MustRows()
	assert.Equal(t, len(rows), browsertest.Eval[int](t, p, `document.querySelectorAll("table.section7 tr.row").length`))
	// Every link of a "proved by" cell lands on a rule of the page.
	broken := browsertest.Eval[[]string](t, p, `Array.from(document.querySelectorAll("td.proofs a")).map(a => a.getAttribute("href")).filter(h => !document.getElementById(h.slice(1)))`)
	assert.Empty(t, broken)
	proved := browsertest.Eval[int](t, p, `Array.from(document.querySelectorAll("table.section7 tr.row")).filter(r => r.querySelector("td.proofs a")).length`)
	assert.Greater(t, proved, len(rows)/2, "most rows are proved by a rule")
	// An exact message of a rule is code, as in the document.
	assert.True(t, browsertest.Eval[bool](t, p, `Array.from(document.querySelectorAll(".steps li.then code")).some(c => c.innerText === "Metode pembayaran tidak tersedia.")`))

	// The sidebar wraps a long path after a slash, never inside a word:
	// each word of its links stands on one line.
	broken = browsertest.Eval[[]string](t, p, brokenWords("nav.side a"))
	assert.Empty(t, broken, "words of the sidebar broken across lines")

	png := browsertest.Screenshot(t, p, "living-docs.png", false)
	browsertest.SaveForDocs(t, filepath.Join("..", "..", "docs", "living-docs.png"), png)
}

// brokenWords is a script that lists the words (runs between slashes and
// spaces) of the elements selector matches that the page breaks across
// lines.
func brokenWords(selector string) string {
	return `Array.from(document.querySelectorAll(` + "`" + selector + "`" + `)).flatMap(el => {
  const out = [], walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (const m of n.data.matchAll(/[^\/\s]+/g)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      if (r.getClientRects().length > 1) out.push(m[0]);
    }
  }
  return out;
})`
}
