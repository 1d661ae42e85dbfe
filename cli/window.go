package cli

import (
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// checkWhen reads a time flag (--since, --until) by the master's own rule
// (api.ParseWhen), so that a bad value is a usage error naming the flag
// rather than the master's 400 naming its query parameter. It takes
// Slurm's local times too (sacct -S 18:30, -S 2026-11-28T18:30, -S
// 2026-11-28), which it returns as RFC 3339 to send: norm is what the
// master is to get.
func checkWhen(flag, v string, now time.Time) (t time.Time, norm string, err error) {
	if lt, ok := slurmTime(v, now); ok {
		return lt.UTC(), lt.UTC().Format(time.RFC3339), nil
	}
	t, err = api.ParseWhen(v, now)
	if err != nil {
		return t, v, usageErrorf("%s: %w, or a local time as sacct takes it (18:30, 2026-11-28T18:30, 2026-11-28), got %q", flag, err, v)
	}
	return t, v, nil
}

// slurmLayouts are the local times sacct's -S and -E take (no zone).
var slurmLayouts = []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"}

// slurmTime reads a local time as sacct does: HH:MM[:SS] is today's, a
// date without a time its midnight.
func slurmTime(v string, now time.Time) (time.Time, bool) {
	loc := now.Location()
	for _, layout := range []string{"15:04:05", "15:04"} {
		if c, err := time.ParseInLocation(layout, v, loc); err == nil {
			y, m, d := now.In(loc).Date()
			return time.Date(y, m, d, c.Hour(), c.Minute(), c.Second(), 0, loc), true
		}
	}
	for _, layout := range slurmLayouts {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// checkWindow checks the flags of a window before it is sent: each time,
// and that since is before until, or before now when until is not given
// (the master's default until): a --since in the future makes a window
// the master refuses. untilFlag names the until flag (allot sim's is
// --history-until).
func checkWindow(w *client.Window, untilFlag string) error {
	now := time.Now()
	var since, until time.Time
	var err error
	if w.Since != "" {
		if since, w.Since, err = checkWhen("--since", w.Since, now); err != nil {
			return err
		}
	}
	if w.Until != "" {
		if until, w.Until, err = checkWhen(untilFlag, w.Until, now); err != nil {
			return err
		}
	}
	if w.Since != "" && w.Until != "" && !since.Before(until) {
		return usageErrorf("--since %s is not before %s %s", w.Since, untilFlag, w.Until)
	}
	if w.Since != "" && w.Until == "" && !since.Before(now) {
		return usageErrorf("--since %s is not in the past (now is %s): give an earlier time, or %s after it",
			w.Since, now.UTC().Format(time.RFC3339), untilFlag)
	}
	return nil
}
