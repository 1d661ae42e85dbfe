package cli

import (
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// checkWhen reads a time flag (--since, --until) by the master's own rule
// (api.ParseWhen), so that a bad value is a usage error naming the flag
// rather than the master's 400 naming its query parameter.
func checkWhen(flag, v string, now time.Time) (time.Time, error) {
	t, err := api.ParseWhen(v, now)
	if err != nil {
		return t, usageErrorf("%s: %w, got %q", flag, err, v)
	}
	return t, nil
}

// checkWindow checks the flags of a window before it is sent: each time,
// and that since is before until, or before now when until is not given
// (the master's default until): a --since in the future makes a window
// the master refuses. untilFlag names the until flag (allot sim's is
// --history-until).
func checkWindow(w client.Window, untilFlag string) error {
	now := time.Now()
	var since, until time.Time
	var err error
	if w.Since != "" {
		if since, err = checkWhen("--since", w.Since, now); err != nil {
			return err
		}
	}
	if w.Until != "" {
		if until, err = checkWhen(untilFlag, w.Until, now); err != nil {
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
