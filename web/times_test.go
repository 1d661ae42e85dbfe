package web

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// emulateZone sets the tab's time zone and language, as a viewer's
// browser may have them.
func emulateZone(zone, locale string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if err := t.Call(ctx, "Emulation.setTimezoneOverride", map[string]string{"timezoneId": zone}, nil); err != nil {
			return fmt.Errorf("time zone %s: %w", zone, err)
		}
		if err := t.Call(ctx, "Emulation.setLocaleOverride", map[string]string{"locale": locale}, nil); err != nil {
			return fmt.Errorf("locale %s: %w", locale, err)
		}
		return nil
	})
}

// kolkata is Asia/Kolkata, without summer time since 1945; its offset,
// half an hour off the hour, shows a page that ignores or rounds it.
var kolkata = time.FixedZone("IST", 5*3600+30*60)

var footZone = regexp.MustCompile(`^Times in Asia/(Kolkata|Calcutta), UTC\+05:30$`)

// localeTime matches what a browser's language makes of a time:
// 11/20/2026, 20.11.2026, 7:06:02 PM.
var localeTime = regexp.MustCompile(`\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|\d[\s\x{202f}]?[AP]M\b`)

// TestTimesReadAsTheCommandLineWrites: whatever the browser's language,
// the page writes a time as the command line does, 2026-11-20 19:06:02
// in the viewer's zone (the minute alone beside an estimate, as allot
// explain), a span as "2h 10m", and names the zone once in the footer
// and in each time's title.
func TestTimesReadAsTheCommandLineWrites(t *testing.T) {
	stamp := func(tm time.Time) string { return tm.In(kolkata).Format("2006-01-02 15:04:05") + " UTC+05:30" }
	minute := func(tm time.Time) string { return regexp.QuoteMeta(tm.In(kolkata).Format("2006-01-02 15:04")) }
	logAt := at(-5 * time.Minute)
	cases := []struct {
		name, hash, time string // time: a JS expression for the <time> or log stamp
		title            string
		text             *regexp.Regexp
	}{
		{"job list's estimated start", "#/jobs", `document.querySelector('#jobs tr[data-job="3"] td:last-child time')`,
			stamp(at(40 * time.Minute)), regexp.MustCompile(`^in \d+m( \d+s)? \(` + minute(at(40*time.Minute)) + `\)$`)},
		{"job page's estimated start", "#/jobs/3", `document.querySelector('#estimated-start time')`,
			stamp(at(40 * time.Minute)), regexp.MustCompile(`^in \d+m( \d+s)? \(` + minute(at(40*time.Minute)) + `\)$`)},
		{"job page's submission", "#/jobs/1", `[...document.querySelectorAll('dt')].find((d) => d.innerText === 'Submitted')?.nextElementSibling.querySelector('time')`,
			stamp(at(-time.Hour)), regexp.MustCompile(`^1h( \d+m)? ago$`)},
		{"job page's attempt start", "#/jobs/1", `document.querySelector('tbody[data-task="1"] tr[data-attempt="2"] time')`,
			stamp(at(-10 * time.Minute)), regexp.MustCompile(`^\d+m( \d+s)? ago$`)},
		{"job page's log line", "#/jobs/1", `document.querySelector('#log .ts')`,
			stamp(logAt), regexp.MustCompile(`^` + logAt.In(kolkata).Format("15:04:05") + ` $`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.mu.Lock()
			for i := range f.logs["1/0"] {
				f.logs["1/0"][i].Time = logAt
			}
			f.mu.Unlock()
			p := openPage(t, f, c.hash, wide, emulateZone("Asia/Kolkata", "en-US"))
			p.waitFor(c.time+" != null", c.name)
			got := evalJS[[]string](p, fmt.Sprintf(`(() => { const e = %s; return [e.title, e.textContent]; })()`, c.time))
			if got[0] != c.title || !c.text.MatchString(got[1]) {
				t.Errorf("%s = %q (title %q), want %s (title %q)", c.name, got[1], got[0], c.text, c.title)
			}
			// Chromium's ICU may name the zone by its older name, Asia/Calcutta.
			if zone := p.waitText("#zone", "Times"); !footZone.MatchString(zone) {
				t.Errorf("footer's zone = %q, want %s", zone, footZone)
			}
			shown := evalJS[string](p, `document.body.innerText + '\n' + [...document.querySelectorAll('[title]')].map((e) => e.title).join('\n')`)
			if m := localeTime.FindString(shown); m != "" {
				t.Errorf("the page writes a time in the browser's language, %q:\n%s", m, shown)
			}
		})
	}
}

// TestSpansReadAsTheCommandLineWrites: a configured span (a job's time
// limit and checkpoint interval, a pool's grace) reads exactly as allot
// job show and allot pools print it, as a job file writes it ("1h30m",
// not "1 h 30 min"; cli's TestExactDuration has the same table), and the
// backfill window's measured span as allot pools -o wide does ("40m").
func TestSpansReadAsTheCommandLineWrites(t *testing.T) {
	spans := []struct {
		s    int64
		want string
	}{{45, "45s"}, {120, "2m"}, {5400, "1h30m"}, {3605, "1h0m5s"}, {86400, "24h"}}
	// ddOf is the JS for the text of the job page's detail named dt.
	ddOf := func(dt string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('#fields dt')].find((d) => d.innerText === %q)?.nextElementSibling.innerText`, dt)
	}
	cases := []struct {
		name, hash, text string // text: a JS expression for the span's text
		set              func(f *fixture, s int64)
	}{
		{"job's time limit", "#/jobs/1", ddOf("Time limit"), func(f *fixture, s int64) { f.jobs[0].TimeLimitS = s }},
		{"job's checkpoint interval", "#/jobs/1", ddOf("Checkpoint every"), func(f *fixture, s int64) { f.jobs[0].CheckpointEvery = s }},
		{"pool's grace", "#/pools", `document.querySelector('#pools tr[data-pool="a100"] td:nth-of-type(3)')?.innerText`,
			func(f *fixture, s int64) { f.pools[0].GraceS = s }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			p := openPage(t, f, c.hash, wide)
			for _, sp := range spans {
				f.mu.Lock()
				c.set(f, sp.s)
				f.mu.Unlock()
				// The page refreshes every 0.2 s; it shows the new span soon.
				p.waitFor(fmt.Sprintf("(%s) === %q", c.text, sp.want), fmt.Sprintf("%d s to read %q", sp.s, sp.want))
			}
		})
	}
	t.Run("pool's grace of 0", func(t *testing.T) {
		f := newFixture()
		f.pools[0].GraceS = 0
		p := openPage(t, f, "#/pools", wide)
		p.waitFor(`document.querySelector('#pools tr[data-pool="a100"] td:nth-of-type(3)')?.innerText === '0s'`, "a grace of 0 to read 0s")
	})
	t.Run("pool's grace without preemption: a move's deadline", func(t *testing.T) {
		f := newFixture()
		f.pools[0].Preemption, f.pools[0].GraceS = false, 30
		p := openPage(t, f, "#/pools", wide)
		p.waitFor(`document.querySelector('#pools tr[data-pool="a100"] td:nth-of-type(3)')?.innerText === '30s'`, "a grace of 30s shown without preemption")
	})
	t.Run("backfill window", func(t *testing.T) {
		p := openPage(t, newFixture(), "#/pools", wide)
		got := p.waitText(`#pools tr[data-pool="a100"] td.window`, "4 slots")
		if !strings.HasPrefix(got, "4 slots for 40m (until ") {
			t.Errorf("backfill window = %q, want 4 slots for 40m (until …)", got)
		}
	})
}
