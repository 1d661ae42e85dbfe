package web

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/web/webtest"
	"github.com/chromedp/chromedp"
)

// The browser tests share one headless Chromium; each test opens its own
// tab on its own fixture server.
var (
	browserOnce sync.Once
	browserCtx  context.Context
	browserErr  error
	browserStop = func() {}
)

func TestMain(m *testing.M) {
	code := m.Run()
	browserStop()
	os.Exit(code)
}

func startBrowser() {
	path, err := webtest.ChromePath()
	if err != nil {
		browserErr = err
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	// The first run starts the browser and binds it to ctx, which has no
	// deadline; each test limits its own tab instead.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		browserErr = fmt.Errorf("start %s: %w", path, err)
		return
	}
	browserCtx = ctx
	browserStop = func() {
		cancel()
		cancelAlloc()
	}
}

// page is one browser tab showing the dashboard of a fixture.
type page struct {
	t    *testing.T
	ctx  context.Context
	base string // the server's URL
	log  *consoleLog
}

// consoleLog collects a tab's console messages; allow lists substrings of
// error messages the test expects (failed requests it provoked).
type consoleLog struct {
	mu    sync.Mutex
	msgs  []chromedp.ConsoleMessage
	allow []string
}

// sub is the same tab for a subtest, which must fail its own t.
func (p *page) sub(t *testing.T) *page {
	return &page{t: t, ctx: p.ctx, base: p.base, log: p.log}
}

// expect allows console errors that contain one of the substrings.
func (p *page) expect(substrings ...string) {
	p.log.mu.Lock()
	defer p.log.mu.Unlock()
	p.log.allow = append(p.log.allow, substrings...)
}

// pageTimeout bounds everything one test does in its tab.
const pageTimeout = 60 * time.Second

// openPage opens the dashboard of f at hash (e.g. "#/jobs") in a new tab
// of the given width, refreshing every 0.2 s so that tests wait little;
// before, when given, runs in the tab before the page loads (emulateZone).
// At the end of the test it fails on any console error or exception the
// test did not expect (see expect).
func openPage(t *testing.T, f *fixture, hash string, width int64, before ...chromedp.Action[chromedp.Void]) *page {
	t.Helper()
	browserOnce.Do(startBrowser)
	if browserErr != nil {
		t.Fatalf("the dashboard's browser tests need Chromium: %v", browserErr)
	}
	srv := f.serve(t)
	tab, cancelTab := chromedp.NewContext(browserCtx)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	ctx, cancel := context.WithTimeout(tab, pageTimeout)
	t.Cleanup(cancel)
	p := &page{t: t, ctx: ctx, base: srv.URL, log: &consoleLog{}}
	msgs := chromedp.Console(tab)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			p.log.mu.Lock()
			p.log.msgs = append(p.log.msgs, m)
			p.log.mu.Unlock()
		}
	}()
	t.Cleanup(p.checkConsole)
	p.do(chromedp.EmulateViewport(width, 900))
	p.do(before...)
	p.do(chromedp.Navigate(srv.URL + "/?refresh=0.2" + hash))
	return p
}

func (p *page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		p.t.Fatalf("browser: %v\npage text:\n%s", err, p.text())
	}
}

// goTo changes the hash route, as clicking a link does.
func (p *page) goTo(hash string) {
	p.t.Helper()
	p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf("location.hash = %q", hash)))
}

// waitFor waits until the JavaScript expression is truthy.
func (p *page) waitFor(expr, what string) {
	p.t.Helper()
	_, err := chromedp.Run(p.ctx, chromedp.Poll[chromedp.Void](expr,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		p.t.Fatalf("waiting for %s (%s): %v\npage text:\n%s", what, expr, err, p.text())
	}
}

// waitText waits until the element's text contains want, and returns it.
func (p *page) waitText(sel, want string) string {
	p.t.Helper()
	p.waitFor(fmt.Sprintf("(document.querySelector(%q)?.innerText || '').includes(%q)", sel, want),
		fmt.Sprintf("%s to contain %q", sel, want))
	return evalJS[string](p, fmt.Sprintf("document.querySelector(%q).innerText", sel))
}

// text is the page's visible text, for failure messages.
func (p *page) text() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body.innerText"))
	if err != nil {
		return "(unavailable: " + err.Error() + ")"
	}
	return s
}

func evalJS[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v\npage text:\n%s", expr, err, p.text())
	}
	return v
}

func (p *page) checkConsole() {
	p.log.mu.Lock()
	defer p.log.mu.Unlock()
	for _, m := range p.log.msgs {
		if m.Type != chromedp.ConsoleError && m.Type != chromedp.ConsoleException {
			continue
		}
		allowed := false
		for _, a := range p.log.allow {
			allowed = allowed || strings.Contains(m.Text, a)
		}
		if !allowed {
			p.t.Errorf("console %s at %s:%d: %s", m.Type, m.URL, m.Line+1, m.Text)
		}
	}
}
