package web

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestUsageWindowFromAddress: any since the API takes is shown, not
// replaced by 7 days, in From with the window list on "From and until";
// one it refuses is said beside the window, with the master's reason
// (trial 2026-11-29i I17).
func TestUsageWindowFromAddress(t *testing.T) {
	t.Run("1h", func(t *testing.T) {
		f := newFixture()
		p := openPage(t, f, "#/usage?since=1h&by=user", wide)
		p.waitText(`#usage tr[data-usage="ann"]`, "25.00")
		if got := f.seen("GET /usage?since=1h&by=user"); len(got) == 0 {
			t.Errorf("no request for the last hour; requests %v", f.seen("GET /usage"))
		}
		if v := evalJS[[]string](p, `[document.getElementById('u-since').value, document.getElementById('u-from').value]`); v[0] != "custom" || v[1] != "1h" {
			t.Errorf("window list and From = %q, want custom and 1h", v)
		}
		if msg := evalJS[string](p, `document.getElementById('usage-window-error').textContent`); msg != "" {
			t.Errorf("a window the API takes is said not understood: %q", msg)
		}
	})
	t.Run("refused", func(t *testing.T) {
		p := openPage(t, newFixture(), "#/usage?since=yesterday", wide)
		p.expect("status of 400") // the refusal the test provokes
		p.waitText("#usage-window-error", `The window (since yesterday) was not understood: since "yesterday": expected an RFC 3339 time`)
		p.waitText("#usage-total", "No usage shown.")
		if n := evalJS[int](p, `document.querySelectorAll('#usage tr[data-usage]').length`); n != 0 {
			t.Errorf("%d usage rows shown for a window not understood", n)
		}
	})
}

// TestUsageFromUntilAndCSV: From and Until ask the API for that window
// (a local time without a zone sent as RFC 3339), and Download CSV saves
// the rows shown, every column, with the window's bounds.
func TestUsageFromUntilAndCSV(t *testing.T) {
	f := newFixture()
	p := openPage(t, f, "#/usage", wide)
	p.waitText(`#usage tr[data-usage="vision"]`, "30.00")
	p.do(chromedp.SendKeys(chromedp.ID("u-from"), "2d"), chromedp.SendKeys(chromedp.ID("u-until"), "2026-11-28 17:00"),
		chromedp.Click(chromedp.ID("u-apply")))
	p.waitFor(`location.hash.includes('until=')`, "the window in the address")
	p.waitText("#usage-total", "to 2026-11-28 17:00") // the page's local time, as typed
	var asked []string
	for _, r := range f.seen("GET /usage?since=2d") {
		if strings.Contains(r, "until=2026-11-28T") {
			asked = append(asked, r)
		}
	}
	if len(asked) == 0 {
		t.Fatalf("no request for since 2d until 2026-11-28; requests %v", f.seen("GET /usage"))
	}
	// The download's file, caught where the page makes its URL; the
	// link's click, which would save it, does nothing here.
	p.do(chromedp.Evaluate[chromedp.Void](`URL.createObjectURL = (b) => { b.text().then((s) => { window.csvText = s; }); return 'blob:caught'; };
		HTMLAnchorElement.prototype.click = function () { window.csvName = this.download; }`),
		chromedp.Click(chromedp.ID("u-csv")))
	p.waitFor(`typeof window.csvText === 'string'`, "the CSV")
	csv := evalJS[string](p, `window.csvText`)
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	// allot usage -o csv's columns and names, no TOTAL row (trial
	// 2026-11-29j J12).
	if len(lines) != 3 || lines[0] != "POOL,PROJECT,USER,GPU-HOURS,JOBS,ATTEMPTS,SHARE,SINCE,UNTIL" ||
		!strings.HasPrefix(lines[1], ",vision,,30,4,5,0.") || !regexp.MustCompile(`,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(lines[1]) {
		t.Errorf("CSV %q, want a header and the two rows shown", csv)
	}
	if name := evalJS[string](p, `window.csvName`); name != "allot-usage-project.csv" {
		t.Errorf("file name %q", name)
	}
}
