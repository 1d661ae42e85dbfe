package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/client"
)

// TestWindowFlags: the time and enum flags the master also checks are
// checked here first, by the master's rule, so that a bad one is a usage
// error (exit 2) naming the flag; --master points nowhere, so a request
// sent anyway would fail with exit 1.
func TestWindowFlags(t *testing.T) {
	const nowhere = "127.0.0.1:1"
	tests := []struct {
		name   string
		args   []string
		stderr string // substring
	}{
		{"fairness negative since", []string{"fairness", "--since", "-5m"}, `--since: expected an RFC 3339 time (2026-11-01T00:00:00Z) or a duration ago ("36h", "7d"), or a time as sacct takes it (18:30, 2026-11-28T18:30, 2026-11-28, now, now-2hours, today, midnight), got "-5m"`},
		{"fairness word since", []string{"fairness", "--since", "banana"}, `--since: expected an RFC 3339 time`},
		{"fairness bad until", []string{"fairness", "--until", "later"}, `--until: expected an RFC 3339 time`},
		{"history negative since", []string{"history", "--since", "-1h"}, `--since: expected`},
		{"history since after until", []string{"history", "--since", "1h", "--until", "2h"}, `) is not before --until 2h (`},
		{"usage word since", []string{"usage", "--since", "x"}, `--since: expected`},
		{"usage bad by", []string{"usage", "--by", "nope"}, `--by: expected one of project, user, pool, all, got "nope"`},
		{"jobs bad since", []string{"jobs", "--since", "-1d"}, `--since: expected`},
		{"usage future since", []string{"usage", "--since", "2999-01-01T00:00:00Z"}, `--since 2999-01-01T00:00:00Z is not in the past (now is `},
		{"sim history future since", []string{"sim", "--from-history", "--since", "2999-01-01T00:00:00Z"},
			`--since 2999-01-01T00:00:00Z is not in the past (now is `},
		{"sim history since after until", []string{"sim", "--from-history", "--since", "1h", "--history-until", "2h"},
			`) is not before --history-until 2h (`},
		{"sim history until", []string{"sim", "--from-history", "--history-until", "-1h"}, `--history-until: expected an RFC 3339 time`},
		{"compare history since", []string{"sim", "compare", "--from-history", "--since", "soon"}, `--since: expected`},
		{"history now with a bad unit", []string{"history", "-S", "now-2parsecs"}, `--since: expected now, or now+COUNT or now-COUNT with a unit of seconds (the default), minutes, hours, days or weeks (now-2hours, now-30minutes), got "now-2parsecs"`},
		{"history now without a count", []string{"history", "-E", "now-hours"}, `--until: expected now, or now+COUNT`},
		{"history since now", []string{"history", "-S", "now"}, `--since `},
		{"history until before since", []string{"history", "-S", "now-1hours", "-E", "now-2hours"}, `is not before --until`},
		// A future end is refused, as a future start is (trial 2026-11-29i I5).
		{"usage future until", []string{"usage", "--until", "2999-01-01T00:00:00Z"}, `--until 2999-01-01T00:00:00Z is in the future (now is `},
		{"usage future until, short", []string{"usage", "-E", "now+1hours"}, `--until now+1hours (`},
		{"history future until", []string{"history", "-E", "tomorrow"}, `--until tomorrow (`},
		{"fairness future until", []string{"fairness", "-S", "2d", "-E", "2999-01-01T00:00:00Z"}, `is in the future (now is `},
		{"history check future until", []string{"history", "check", "--until", "2999-01-01T00:00:00Z"}, `is in the future`},
		{"sim history future until", []string{"sim", "--from-history", "--history-until", "2999-01-01T00:00:00Z"},
			`--history-until 2999-01-01T00:00:00Z is in the future`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(append(tt.args, "--master", nowhere), &out, &errOut)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr: %s", code, ExitUsage, errOut.String())
			}
			if !strings.Contains(errOut.String(), tt.stderr) || strings.Contains(errOut.String(), "master:") {
				t.Errorf("stderr %q: want %q and no master's reply", errOut.String(), tt.stderr)
			}
		})
	}
}

// TestSlurmTimes (trial p F11): --since and --until take sacct's local
// times, sent to the master as RFC 3339; the master's forms pass as
// they are.
func TestSlurmTimes(t *testing.T) {
	zone := time.FixedZone("CET", 3600)
	now := time.Date(2026, 11, 28, 20, 0, 0, 0, zone)
	tests := []struct {
		name, in, want string
	}{
		{"HH:MM is today's", "18:30", "2026-11-28T17:30:00Z"},
		{"HH:MM:SS", "18:30:15", "2026-11-28T17:30:15Z"},
		{"date and time", "2026-11-27T08:05", "2026-11-27T07:05:00Z"},
		{"a date is its midnight", "2026-11-27", "2026-11-26T23:00:00Z"},
		{"RFC 3339 as it is", "2026-11-01T00:00:00Z", "2026-11-01T00:00:00Z"},
		{"a duration ago as it is", "36h", "36h"},
		// sacct's words (trial 2026-11-29e E8), in its local time.
		{"now", "now", "2026-11-28T19:00:00Z"},
		{"now in capitals", "NOW", "2026-11-28T19:00:00Z"},
		{"now minus hours", "now-1hours", "2026-11-28T18:00:00Z"},
		{"now minus a singular unit", "now-1hour", "2026-11-28T18:00:00Z"},
		{"now minus minutes", "now-30minutes", "2026-11-28T18:30:00Z"},
		{"now minus seconds by default", "now-90", "2026-11-28T18:58:30Z"},
		{"now minus days", "now-2days", "2026-11-26T19:00:00Z"},
		{"now minus weeks with spaces", "now - 1 weeks", "2026-11-21T19:00:00Z"},
		{"now plus", "now+10minutes", "2026-11-28T19:10:00Z"},
		{"today is its midnight", "today", "2026-11-27T23:00:00Z"},
		{"midnight is today's", "midnight", "2026-11-27T23:00:00Z"},
		{"noon is today's", "noon", "2026-11-28T11:00:00Z"},
		{"teatime", "teatime", "2026-11-28T15:00:00Z"},
		{"tomorrow", "tomorrow", "2026-11-28T23:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, norm, err := checkWhen("--since", tt.in, now)
			if err != nil || norm != tt.want {
				t.Fatalf("checkWhen(%q) = %q, %v; want %q", tt.in, norm, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"25:00", "now-", "now-5x", "now*2", "now-99999999weeks", "yesterday"} {
		if _, _, err := checkWhen("--since", bad, now); err == nil || !strings.Contains(err.Error(), "expected") {
			t.Errorf("%s: %v, want an error naming the forms", bad, err)
		}
	}
}

// TestTimeFlagHelp: every time flag read by checkWhen says in its help
// that it takes sacct's words, not only RFC 3339 and durations (trial
// 2026-11-29f F11); an until flag may say "as --since" instead.
func TestTimeFlagHelp(t *testing.T) {
	for _, c := range []struct {
		cmd  []string
		flag string
	}{
		{[]string{"usage"}, "since"}, {[]string{"usage"}, "until"},
		{[]string{"history"}, "since"}, {[]string{"history"}, "until"},
		{[]string{"history", "check"}, "since"}, {[]string{"history", "check"}, "until"},
		{[]string{"fairness"}, "since"}, {[]string{"fairness"}, "until"},
		{[]string{"jobs"}, "since"},
		{[]string{"sim"}, "since"}, {[]string{"sim"}, "history-until"},
		{[]string{"sim", "compare"}, "since"}, {[]string{"sim", "compare"}, "history-until"},
	} {
		t.Run(strings.Join(c.cmd, " ")+" --"+c.flag, func(t *testing.T) {
			cmd, _, err := New().Find(c.cmd)
			if err != nil {
				t.Fatal(err)
			}
			f := cmd.Flags().Lookup(c.flag)
			if f == nil {
				t.Fatalf("allot %s has no --%s", strings.Join(c.cmd, " "), c.flag)
			}
			if !strings.Contains(f.Usage, whenHelp) && !strings.Contains(f.Usage, "as --since") {
				t.Errorf("--%s help %q: want %q or \"as --since\"", c.flag, f.Usage, whenHelp)
			}
			if !strings.Contains(whenHelp, "now-2hours") || !strings.Contains(whenHelp, "today") {
				t.Errorf("whenHelp %q names no sacct word", whenHelp)
			}
		})
	}
}

// TestWindowOrderResolved: the since-after-until error gives the times
// the flags stand for, as the not-in-the-past error does, and an RFC
// 3339 value once (trial 2026-11-29g G7: "--since 1m is not before
// --history-until 2m" read as false).
func TestWindowOrderResolved(t *testing.T) {
	const at = `\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)`
	tests := []struct {
		name, since, until, flag string
		want                     string // a regexp of the whole message
	}{
		{"durations ago", "1m", "2m", "--history-until", `^--since 1m ` + at + ` is not before --history-until 2m ` + at + `$`},
		{"RFC 3339 times", "2026-11-29T10:00:00Z", "2026-11-29T09:00:00Z", "--until",
			`^--since 2026-11-29T10:00:00Z is not before --until 2026-11-29T09:00:00Z$`},
		{"sacct's words", "now-1hours", "now-2hours", "--until", `^--since now-1hours ` + at + ` is not before --until now-2hours ` + at + `$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkWindow(&client.Window{Since: tt.since, Until: tt.until}, tt.flag)
			if err == nil || !regexp.MustCompile(tt.want).MatchString(err.Error()) {
				t.Errorf("checkWindow = %v, want an error matching %s", err, tt.want)
			}
		})
	}
}
