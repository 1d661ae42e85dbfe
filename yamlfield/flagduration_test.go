package yamlfield

import (
	"errors"
	"testing"
)

// TestParseDuration: a flag's value is read as a file's duration field is,
// and refused in the same words, without the file's place.
func TestParseDuration(t *testing.T) {
	tests := []struct {
		name, src string
		want      int64
		msg       string
	}{
		{name: "go duration", src: "24h", want: 86400},
		{name: "bare seconds", src: "90", want: 90},
		{name: "zero", src: "0", want: 0},
		{name: "whole days", src: "2d", want: 2 * 86400},
		{name: "days and hours", src: "1d12h", want: 36 * 3600},
		{name: "slurm clock", src: "1:30:00", want: 5400},
		{name: "slurm days", src: "2-12:00:00", want: 2*86400 + 12*3600},
		{name: "spaces around", src: " 6h ", want: 6 * 3600},
		{name: "fractional hours", src: "1.5h", want: 5400},
		{name: "empty", src: "", msg: durationWant + `, got ""`},
		{name: "a word", src: "soon", msg: durationWant + `, got "soon"`},
		{name: "a unit unknown", src: "3w", msg: durationWant + `, got "3w"`},
		{name: "negative seconds", src: "-5", msg: `expected a duration >= 0, got "-5"`},
		{name: "negative duration", src: "-1h", msg: `expected a duration >= 0, got "-1h"`},
		{name: "not whole seconds", src: "1500ms", msg: `expected a whole number of seconds, got "1500ms"`},
		{name: "slurm field out of range", src: "1:75:00", msg: `expected minutes from 0 to 59 in H:MM:SS, got "1:75:00"`},
		{name: "too many digits", src: "99999999999999999999", msg: `duration "99999999999999999999" is too long (the limit is 9223372036s, about 292 years)`},
		{name: "too many days", src: "99999999d", msg: `duration "99999999d" is too long (the limit is 9223372036s, about 292 years)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDuration(tt.src)
			switch {
			case tt.msg == "" && (err != nil || got != tt.want):
				t.Errorf("ParseDuration(%q) = %d, %v; want %d", tt.src, got, err, tt.want)
			case tt.msg != "" && (err == nil || err.Error() != tt.msg):
				t.Errorf("ParseDuration(%q) = %d, %v; want the error %q", tt.src, got, err, tt.msg)
			}
		})
	}
}

// TestParseDurationCause: a Go duration refused keeps the parser's error
// beneath the message.
func TestParseDurationCause(t *testing.T) {
	_, err := ParseDuration("3w")
	if err == nil || errors.Unwrap(err) == nil {
		t.Errorf("ParseDuration(3w) = %v (cause %v); want time.ParseDuration's error beneath", err, errors.Unwrap(err))
	}
}
