package yamlfield

import (
	"errors"
	"strconv"
	"strings"
)

// ParseDuration reads a duration given outside a YAML file, such as a
// command-line flag's value, in whole seconds: the spellings Duration
// takes (a bare number of seconds like 90, a Go duration like 1h30m,
// whole days first like 2d or 1d12h, or Slurm's 1:30:00 and 2-12:00:00),
// with its range (0 up to about 292 years). Its error says what was
// expected and quotes s, and leaves naming the flag to the caller, so
// that a flag and a file field reject the same value in the same words.
func ParseDuration(s string) (int64, error) {
	s = strings.TrimSpace(s)
	got := strconv.Quote(s)
	if digits := strings.TrimPrefix(s, "-"); allDigits(digits) {
		// As YAML resolves a bare number: seconds, and -5 is a negative
		// duration rather than no duration at all. Too many digits for an
		// int64 is past any limit.
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			v = maxDurationSeconds + 1
		}
		if digits != s {
			v = -v
		}
		return inRange(got, float64(v), v)
	}
	secs, approx, bad := parseDurationString(s, got)
	if bad != nil {
		return 0, bad
	}
	return inRange(got, approx, secs)
}

// inRange is ParseDuration's form of checkSeconds.
func inRange(got string, approx float64, secs int64) (int64, error) {
	if msg := rangeProblem(">= 0", got, approx); msg != "" {
		return 0, errors.New(msg)
	}
	return secs, nil
}

// Error makes a refused spelling an error of its own for ParseDuration,
// with the parser's error, where there is one, beneath it.
func (d *durationProblem) Error() string { return d.msg }

func (d *durationProblem) Unwrap() error { return d.cause }
