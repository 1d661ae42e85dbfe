package yamlfield

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// durationWant is the message for a value that is no duration at all.
const durationWant = "expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00)"

// durationProblem says why a duration string was refused: msg is the whole
// message (got already in it), cause the parser's error where there is one.
type durationProblem struct {
	msg   string
	cause error
}

// parseDurationString reads the string spellings of a duration: a Go
// duration (90s, 1h30m), one with a leading whole number of days (2d,
// 1d12h), or Slurm's time forms (MM:SS, H:MM:SS, D-H, D-H:MM,
// D-H:MM:SS). got is the value as messages show it. approx is the value
// as a float, so that a huge one is reported as too long rather than
// wrapped; secs is only meaningful when approx is in range.
//
// A bare number is not read here: YAML resolves it as an integer, which
// Duration takes as seconds (Slurm would read minutes; the formats have
// always read seconds, and a file must not change meaning).
func parseDurationString(s, got string) (secs int64, approx float64, bad *durationProblem) {
	if strings.ContainsAny(s, ":") || isSlurmDays(s) {
		return parseSlurmTime(s, got)
	}
	// Whole days first ("-2d12h"), the rest a Go duration; without days
	// the whole string is one, its sign its own.
	sign, unsigned := 1.0, strings.TrimPrefix(s, "+")
	if r, ok := strings.CutPrefix(s, "-"); ok {
		sign, unsigned = -1, r
	}
	var days int64
	i := strings.IndexByte(unsigned, 'd')
	if i <= 0 || !allDigits(unsigned[:i]) {
		sign, i, unsigned = 1, -1, s
	} else if i > 7 { // more than 9,999,999 days is past any limit
		return 0, sign * math.MaxFloat64, nil
	}
	rest := unsigned[i+1:]
	if i > 0 {
		days, _ = strconv.ParseInt(unsigned[:i], 10, 64)
		if rest == "" {
			return int64(sign) * days * 86400, sign * float64(days) * 86400, nil
		}
		if rest[0] == '-' || rest[0] == '+' {
			return 0, 0, &durationProblem{msg: durationWant + ", got " + got}
		}
	}
	d, err := time.ParseDuration(rest)
	if err != nil {
		return 0, 0, &durationProblem{msg: durationWant + ", got " + got, cause: err}
	}
	if d%time.Second != 0 {
		return 0, 0, &durationProblem{msg: "expected a whole number of seconds, got " + got}
	}
	part := int64(d / time.Second)
	approx = sign * (float64(days)*86400 + float64(part))
	return int64(sign) * (days*86400 + part), approx, nil
}

// isSlurmDays tells D-H from the other forms: digits, a dash, digits.
func isSlurmDays(s string) bool {
	d, h, ok := strings.Cut(s, "-")
	return ok && allDigits(d) && allDigits(h)
}

// slurmUnit is one field of Slurm's time forms: its name, its size in
// seconds and its bound when it is not the first field (hours run to 23
// after days, minutes and seconds to 59).
type slurmUnit struct {
	name  string
	secs  int64
	limit int64
}

var (
	slurmDays    = slurmUnit{"days", 86400, 0}
	slurmHours   = slurmUnit{"hours", 3600, 24}
	slurmMinutes = slurmUnit{"minutes", 60, 60}
	slurmSeconds = slurmUnit{"seconds", 1, 60}
)

// slurmForms are Slurm's --time forms with a colon or a dash, by whether
// there are days and how many colon-separated fields follow.
var slurmForms = map[[2]int]struct {
	name  string
	units []slurmUnit
}{
	{0, 2}: {"MM:SS", []slurmUnit{slurmMinutes, slurmSeconds}},
	{0, 3}: {"H:MM:SS", []slurmUnit{slurmHours, slurmMinutes, slurmSeconds}},
	{1, 1}: {"D-HH", []slurmUnit{slurmDays, slurmHours}},
	{1, 2}: {"D-HH:MM", []slurmUnit{slurmDays, slurmHours, slurmMinutes}},
	{1, 3}: {"D-HH:MM:SS", []slurmUnit{slurmDays, slurmHours, slurmMinutes, slurmSeconds}},
}

// parseSlurmTime reads Slurm's --time forms. The first field is
// unbounded (100:00:00 is 100 hours, 90:00 is 90 minutes), as Slurm
// reads it; the others are bounded by the next unit (1:75:00 is an
// error, not 2:15:00), so that a misplaced field is caught.
func parseSlurmTime(s, got string) (int64, float64, *durationProblem) {
	fields := []string{}
	hasDays := 0
	clock := s
	if d, rest, ok := strings.Cut(s, "-"); ok {
		fields, clock, hasDays = append(fields, d), rest, 1
	}
	fields = append(fields, strings.Split(clock, ":")...)
	form, ok := slurmForms[[2]int{hasDays, len(fields) - hasDays}]
	if !ok {
		return 0, 0, &durationProblem{msg: durationWant + ", got " + got}
	}
	var secs int64
	var approx float64
	for i, f := range fields {
		u := form.units[i]
		if !allDigits(f) {
			return 0, 0, &durationProblem{msg: fmt.Sprintf("expected whole %s in %s, got %s", u.name, form.name, got)}
		}
		if len(f) > 12 { // past any limit, and ParseInt could overflow
			return 0, math.MaxFloat64, nil
		}
		v, _ := strconv.ParseInt(f, 10, 64)
		if i > 0 && v >= u.limit {
			return 0, 0, &durationProblem{msg: fmt.Sprintf("expected %s from 0 to %d in %s, got %s", u.name, u.limit-1, form.name, got)}
		}
		secs += v * u.secs
		approx += float64(v) * float64(u.secs)
	}
	return secs, approx, nil
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// DurationText reads a duration given as text outside a YAML file (a
// JSON value, a command-line flag) as a file's duration field takes it
// (Duration): whole seconds ("90", or a whole float such as "90.0") or
// a string form ("90s", "1h30m", "2d", "1d12h", "1:30:00",
// "2-12:00:00"). Its error is the message Duration gives, without a
// file, line or field: the caller names the field.
func DurationText(text string) (int64, error) {
	tag := "!!str"
	if _, err := strconv.ParseInt(text, 10, 64); err == nil {
		tag = "!!int"
	} else if _, err := strconv.ParseFloat(text, 64); err == nil && strings.Trim(text, "0123456789.eE+-") == "" {
		tag = "!!float" // "1e3", not "Inf" nor "0x10"
	}
	p := New("", Options{BareNumbers: true})
	v, ok := Duration(p, &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: text}, "")
	if !ok {
		return 0, errors.New(p.errs[0].Msg)
	}
	return v, nil
}
