// Package browsertest opens the suite's HTML pages in a headless Chromium
// for tests: it starts the browser with a fresh profile and no network
// services, collects the console, evaluates expressions and takes
// screenshots. Without a browser the test is skipped, saying why.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// EnvBrowser names the browser executable, overriding the search.
const EnvBrowser = "CONFORMANCE_BROWSER"

// EnvScreenshots, set to a non-empty value, asks the browser tests to save
// the screenshots shown by the README under docs/.
const EnvScreenshots = "CONFORMANCE_SCREENSHOTS"

// EnvSkipLog names a file each skipped browser test appends a line to
// ("TestName: reason"), so that `make test` can say, without -v, how many
// were skipped and why.
const EnvSkipLog = "CONFORMANCE_SKIP_LOG"

// skip skips the test, recording it in $CONFORMANCE_SKIP_LOG when set.
func skip(tb testing.TB, reason string) {
	tb.Helper()
	if path := os.Getenv(EnvSkipLog); path != "" {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			_, _ = fmt.Fprintf(f, "%s: %s\n", tb.Name(), reason)
			_ = f.Close() // a lost line only shortens make test's note
		}
	}
	tb.Skip(reason)
}

// timeout bounds everything a test does with one browser.
const timeout = 90 * time.Second

// Find returns the path of a Chromium or Chrome executable, or "".
func Find() string {
	if p := os.Getenv(EnvBrowser); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// noBrowser is why a browser test is skipped without a browser.
var noBrowser = fmt.Sprintf("no Chromium found (looked for $%s, /usr/bin/chromium, chromium, chromium-browser, google-chrome); install Debian's chromium package to run the browser test", EnvBrowser)

// Need skips the test at once when no browser is installed: a test calls it
// before it makes the page it would open (a run, its reports), which Open
// would only skip afterwards.
func Need(tb testing.TB) {
	tb.Helper()
	if Find() == "" {
		skip(tb, noBrowser)
	}
}

// Page is one page open in a headless browser.
type Page struct {
	ctx context.Context

	mu       sync.Mutex // guards messages
	messages []chromedp.ConsoleMessage
}

// Open starts a headless browser and opens the file at path. The browser
// ends with the test. The test is skipped when no browser is installed.
func Open(tb testing.TB, path string) *Page {
	tb.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		tb.Fatal(err)
	}
	return OpenURL(tb, "file://"+filepath.ToSlash(abs))
}

// OpenURL is Open for the page at url (a server on loopback).
func OpenURL(tb testing.TB, url string) *Page {
	tb.Helper()
	bin := Find()
	if bin == "" {
		skip(tb, noBrowser)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	tb.Cleanup(cancel)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(1280, 1000),
	}
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	tb.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	tb.Cleanup(bcancel)

	p := &Page{ctx: bctx}
	// Start the browser before subscribing, so that Console has a target.
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		tb.Fatalf("starting %s: %v", bin, err)
	}
	messages := chromedp.Console(bctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.messages = append(p.messages, m)
			p.mu.Unlock()
		}
	}()
	tb.Cleanup(func() { bcancel(); <-done })
	if err := chromedp.Do(bctx, chromedp.Navigate(url)); err != nil {
		tb.Fatalf("opening %s: %v", url, err)
	}
	return p
}

// Errors returns the console errors and uncaught exceptions so far.
func (p *Page) Errors() []string {
	// Let the browser deliver what the last action caused.
	_ = chromedp.Do(p.ctx, chromedp.Sleep(100*time.Millisecond))
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.messages {
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
			out = append(out, string(m.Type)+": "+m.Text+" ("+m.URL+")")
		}
	}
	return out
}

// Eval evaluates a JavaScript expression in the page and decodes its value.
func Eval[T any](tb testing.TB, p *Page, expr string) T {
	tb.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// Screenshot captures the page (the whole page when full, else the first
// screen), saves it as name under the test's temporary directory and
// returns the PNG.
func Screenshot(tb testing.TB, p *Page, name string, full bool) []byte {
	tb.Helper()
	var (
		png []byte
		err error
	)
	if full {
		png, err = chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	} else {
		png, err = chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	}
	if err != nil {
		tb.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("screenshot saved: %s (%d bytes)", path, len(png))
	return png
}

// ScreenshotOf captures the element selector (a CSS selector) of the page
// whole, saves it as name under the test's temporary directory and
// returns the PNG.
func ScreenshotOf(tb testing.TB, p *Page, selector, name string) []byte {
	tb.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.Screenshot(chromedp.CSS(selector)))
	if err != nil {
		tb.Fatalf("screenshot of %s: %v", selector, err)
	}
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("screenshot saved: %s (%d bytes)", path, len(png))
	return png
}

// SaveForDocs writes png to path when $CONFORMANCE_SCREENSHOTS is set.
func SaveForDocs(tb testing.TB, path string, png []byte) {
	tb.Helper()
	if os.Getenv(EnvScreenshots) == "" {
		return
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("README screenshot updated: %s", path)
}
