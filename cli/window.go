package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// checkWhen reads a time flag (--since, --until) by the master's own rule
// (api.ParseWhen), so that a bad value is a usage error naming the flag
// rather than the master's 400 naming its query parameter. It takes
// Slurm's times too: local ones (sacct -S 18:30, -S 2026-11-28T18:30, -S
// 2026-11-28) and its words (-E now, -S now-2hours, -S today,
// midnight), which it returns as RFC 3339 to send: norm is what the
// master is to get.
func checkWhen(flag, v string, now time.Time) (t time.Time, norm string, err error) {
	lt, ok, err := slurmWord(v, now)
	if err != nil {
		return t, v, usageErrorf("%s: %w, got %q", flag, err, v)
	}
	if !ok {
		lt, ok = slurmTime(v, now)
	}
	if ok {
		return lt.UTC(), lt.UTC().Format(time.RFC3339), nil
	}
	t, err = api.ParseWhen(v, now)
	if err != nil {
		return t, v, usageErrorf("%s: %w, or a time as sacct takes it (%s), got %q", flag, err, sacctTimes, v)
	}
	return t, v, nil
}

// sacctTimes are examples of the times of sacct's -S and -E that
// checkWhen takes besides the master's.
const sacctTimes = "18:30, 2026-11-28T18:30, 2026-11-28, now, now-2hours, today, midnight"

// whenHelp is what every time flag read by checkWhen takes, for its
// help: one phrase, so that no flag's help lags behind the parser
// (trial 2026-11-29f F11: usage --help named only RFC 3339 and
// durations after E8 added sacct's words).
const whenHelp = `an RFC 3339 time, a duration ago ("36h", "7d"), or a time as sacct takes it (` + sacctTimes + `)`

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

// slurmDayTimes are the times of day sacct takes by name, today's (as
// sacct's -S and -E read them: the past is meant).
var slurmDayTimes = map[string]int{"midnight": 0, "elevenses": 11, "noon": 12, "fika": 15, "teatime": 16}

// slurmUnits are the units of sacct's now+COUNT and now-COUNT; a count
// without one is seconds.
var slurmUnits = map[string]time.Duration{
	"": time.Second, "second": time.Second, "seconds": time.Second,
	"minute": time.Minute, "minutes": time.Minute, "hour": time.Hour, "hours": time.Hour,
	"day": 24 * time.Hour, "days": 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
}

// slurmNowSpan bounds now±COUNT, far beyond any history and within a
// time.Duration.
const slurmNowSpan = 100 * 365 * 24 * time.Hour

// errSlurmNow says what sacct's now form takes.
var errSlurmNow = errors.New("expected now, or now+COUNT or now-COUNT with a unit of seconds (the default), minutes, hours, days or weeks (now-2hours, now-30minutes)")

// slurmWord reads sacct's named times, in any case: now and now±COUNT
// [UNIT] (trial 2026-11-29e E8: -E now was refused), today and
// tomorrow (their midnights), and midnight, noon and the other
// times of day (today's). ok is false for any other value, which is
// left to the other forms; err is set for a now form that is wrong.
func slurmWord(v string, now time.Time) (t time.Time, ok bool, err error) {
	w := strings.ToLower(strings.TrimSpace(v))
	y, m, d := now.Date()
	switch w {
	case "today":
		return time.Date(y, m, d, 0, 0, 0, 0, now.Location()), true, nil
	case "tomorrow":
		return time.Date(y, m, d+1, 0, 0, 0, 0, now.Location()), true, nil
	}
	if h, named := slurmDayTimes[w]; named {
		return time.Date(y, m, d, h, 0, 0, 0, now.Location()), true, nil
	}
	rest, isNow := strings.CutPrefix(w, "now")
	if !isNow {
		return t, false, nil
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return now, true, nil
	}
	sign := time.Duration(1)
	switch rest[0] {
	case '-':
		sign = -1
	case '+':
	default:
		return t, false, errSlurmNow
	}
	rest = strings.TrimSpace(rest[1:])
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	count, cerr := strconv.ParseInt(rest[:digits], 10, 32)
	unit, known := slurmUnits[strings.TrimSpace(rest[digits:])]
	if digits == 0 || cerr != nil || !known {
		return t, false, errSlurmNow
	}
	if time.Duration(count) > slurmNowSpan/unit {
		return t, false, fmt.Errorf("%w, at most 100 years away", errSlurmNow)
	}
	return now.Add(sign * time.Duration(count) * unit), true, nil
}

// checkWindow checks the flags of a window before it is sent: each time,
// that since is before until, or before now when until is not given
// (the master's default until): a --since in the future makes a window
// the master refuses; and that until is not in the future, which a
// report would claim to count (running attempts are counted up to now)
// and from which usage's default since would count back, so that the
// same flags gave other numbers a minute later (trial 2026-11-29i I5).
// untilFlag names the until flag (allot sim's is --history-until).
func checkWindow(w *client.Window, untilFlag string) error {
	now := time.Now()
	var since, until time.Time
	var err error
	sinceRaw, untilRaw := w.Since, w.Until
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
	if w.Until != "" && until.After(now) {
		return usageErrorf("%s %s is in the future (now is %s): leave %s out to count up to now",
			untilFlag, resolved(untilRaw, until), now.UTC().Format(time.RFC3339), untilFlag)
	}
	if w.Since != "" && w.Until != "" && !since.Before(until) {
		// The times as resolved, as the error below gives them: --since
		// 1m is after --until 2m, both ago, which the raw words hide
		// (trial 2026-11-29g G7).
		return usageErrorf("--since %s is not before %s %s", resolved(sinceRaw, since), untilFlag, resolved(untilRaw, until))
	}
	if w.Since != "" && w.Until == "" && !since.Before(now) {
		return usageErrorf("--since %s is not in the past (now is %s): give an earlier time, or %s after it",
			w.Since, now.UTC().Format(time.RFC3339), untilFlag)
	}
	return nil
}

// resolved is a time flag's value v with the time it stands for, t, in
// RFC 3339 (UTC) when v does not say it so already: "1m (2026-11-29T17:19:00Z)".
func resolved(v string, t time.Time) string {
	at := t.UTC().Format(time.RFC3339)
	if v == at {
		return v
	}
	return fmt.Sprintf("%s (%s)", v, at)
}
