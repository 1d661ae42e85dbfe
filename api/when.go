package api

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// The time parameters of the accounting and listing endpoints (since and
// until of /usage, /history, /fairness, /history/scenario and /jobs) are
// read by ParseWhen, at the master and in the CLI, so that the CLI can
// refuse a bad flag value before it asks the master, by the same rule.

// ErrWhen is ParseWhen's error: it says what a time parameter takes.
var ErrWhen = errors.New(`expected an RFC 3339 time (2026-11-01T00:00:00Z) or a duration ago ("36h", "7d")`)

// ParseWhen reads an RFC 3339 time, or a duration before now: Go's
// ("90m", "36h") or whole days ("7d"). Negative durations, which would be
// in the future, are refused.
func ParseWhen(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 && n <= 36500 {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, ErrWhen
}

// UsageGroupings are the values of /usage's by parameter.
var UsageGroupings = []string{"project", "user", "pool", "all"}
