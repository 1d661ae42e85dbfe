package yamlfield

import (
	"testing"
	"time"
)

// TestDurationForms pins the spellings Duration takes beyond Go's: whole
// days first, and Slurm's --time forms, with the bounds that catch a
// misplaced field.
func TestDurationForms(t *testing.T) {
	tests := []struct {
		src  string
		want int64
		msg  string
	}{
		{src: "2d", want: 2 * 86400},
		{src: "1d12h", want: 36 * 3600},
		{src: "1d1h30m15s", want: 86400 + 5415},
		{src: "0d", want: 0},
		{src: "1:00:00", want: 3600},
		{src: "100:00:00", want: 100 * 3600},
		{src: "5:30", want: 330},
		{src: "90:00", want: 5400},
		{src: "1-00:00:00", want: 86400},
		{src: "2-12", want: 2*86400 + 12*3600},
		{src: "2-12:30", want: 2*86400 + 12*3600 + 1800},
		{src: "0-0:0:1", want: 1},
		{src: "90", want: 90}, // a bare number stays seconds
		{src: "1:75:00", msg: `f:1: v: expected minutes from 0 to 59 in H:MM:SS, got "1:75:00"`},
		{src: "1:00:60", msg: `f:1: v: expected seconds from 0 to 59 in H:MM:SS, got "1:00:60"`},
		{src: "1-24:00:00", msg: `f:1: v: expected hours from 0 to 23 in D-HH:MM:SS, got "1-24:00:00"`},
		{src: "5:61", msg: `f:1: v: expected seconds from 0 to 59 in MM:SS, got "5:61"`},
		{src: "1:x:00", msg: `f:1: v: expected whole minutes in H:MM:SS, got "1:x:00"`},
		{src: "-1:00:00", msg: `f:1: v: expected whole days in D-HH:MM:SS, got "-1:00:00"`},
		{src: "1:00:00:00", msg: `f:1: v: ` + durationWant + `, got "1:00:00:00"`},
		{src: "1-2-3", msg: `f:1: v: ` + durationWant + `, got "1-2-3"`},
		{src: "1.5d", msg: `f:1: v: ` + durationWant + `, got "1.5d"`},
		{src: "2d-1h", msg: `f:1: v: ` + durationWant + `, got "2d-1h"`},
		{src: "-2d", msg: `f:1: v: expected a duration >= 0, got "-2d"`},
		{src: "2d500ms", msg: `f:1: v: expected a whole number of seconds, got "2d500ms"`},
		{src: "99999999d", msg: `f:1: v: duration "99999999d" is too long (the limit is 9223372036s, about 292 years)`},
		{src: "999999999999999:00", msg: `f:1: v: duration "999999999999999:00" is too long (the limit is 9223372036s, about 292 years)`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			p := New("f", dots)
			got, ok := Duration(p, node(t, "v: "+tt.src).Content[1], "v")
			if msg := messages(p); msg != tt.msg || (ok && got != tt.want) || ok != (tt.msg == "") {
				t.Errorf("got %d, %v, %q; want %d, %q", got, ok, msg, tt.want, tt.msg)
			}
		})
	}
}

// FuzzDuration checks that the string spellings never panic, stay in
// range, and read every Go duration as time.ParseDuration does.
func FuzzDuration(f *testing.F) {
	for _, s := range []string{"90s", "1h30m", "2d", "1d12h", "1:00:00", "5:30", "1-00:00:00", "2-12", "1:75:00", "-2d", "9x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		secs, approx, bad := parseDurationString(s, "x")
		if bad != nil {
			if bad.msg == "" {
				t.Fatalf("%q: refused with no message", s)
			}
			return
		}
		if approx >= 0 && approx <= float64(maxDurationSeconds) && float64(secs) != approx {
			t.Fatalf("%q: %d seconds, but approximately %g", s, secs, approx)
		}
		if d, err := time.ParseDuration(s); err == nil && int64(d/time.Second) != secs {
			t.Fatalf("%q: %d seconds, time.ParseDuration says %v", s, secs, d)
		}
	})
}

// TestDurationText: a duration given outside a file reads as a file's
// duration field does, and a bad one says why without a file or line.
func TestDurationText(t *testing.T) {
	cases := []struct {
		name, in string
		want     int64
		err      string
	}{
		{"go duration", "2h", 7200, ""},
		{"days", "1d12h", 129600, ""},
		{"slurm days", "1-00:00:00", 86400, ""},
		{"seconds", "7200", 7200, ""},
		{"whole float", "90.0", 90, ""},
		{"exponent", "1e3", 1000, ""},
		{"zero", "0", 0, ""},
		{"fraction", "90.5", 0, "expected a whole number of seconds, got 90.5"},
		{"negative", "-5", 0, "expected a duration >= 0, got -5"},
		{"words", "abc", 0, `expected a duration (whole seconds like 90, or a string like 90s, 1h30m, 2d or 1:30:00), got "abc"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DurationText(c.in)
			if got != c.want || (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
				t.Errorf("DurationText(%q) = %d, %v; want %d, %q", c.in, got, err, c.want, c.err)
			}
		})
	}
}
