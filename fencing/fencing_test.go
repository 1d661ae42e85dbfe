package fencing

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestLate: an agent_timeout is too short for the fence when two long
// polls and the pace between them (or the floor) reach its end less the
// margin (a tenth of it, at least Default.Margin): cases at the boundary
// (late: the quiet ends just as the margin begins), just below and just
// above it, with the master's default 10 s long poll and with a short
// one, where the floor and the 1 s margin rule. Times agrees.
func TestLate(t *testing.T) {
	const s = time.Second
	// With a 10 s hold and a 1 s pace the quiet is 21 s: late while
	// timeout - timeout/10 <= 21 s, up to 70/3 s.
	boundary := 23333333333 * time.Nanosecond
	tests := []struct {
		name             string
		timeout, hold    time.Duration
		late             bool
		wantAfter, grace time.Duration // Times, with a 30 s pool grace
	}{
		{"default hold: 20s, well below", 20 * s, 10 * s, true, 21 * s, 0},
		{"default hold: just below the boundary", boundary - time.Nanosecond, 10 * s, true, 21 * s, 0},
		{"default hold: at the boundary", boundary, 10 * s, true, 21 * s, 0},
		{"default hold: just above the boundary", boundary + time.Nanosecond, 10 * s, false, 21 * s, time.Nanosecond},
		{"default hold: 24s", 24 * s, 10 * s, false, 21 * s, 600 * time.Millisecond},
		{"default: 30s", 30 * s, 10 * s, false, 21 * s, 6 * s},
		{"short hold: floor and 1 s margin, below", 6*s - time.Millisecond, 2 * s, true, 5 * s, 0},
		{"short hold: at the boundary", 6 * s, 2 * s, true, 5 * s, 0},
		{"short hold: above", 6*s + time.Millisecond, 2 * s, false, 5 * s, time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Default.Late(tt.timeout, tt.hold, time.Second); got != tt.late {
				t.Errorf("Late(%s, hold %s) = %v, want %v", tt.timeout, tt.hold, got, tt.late)
			}
			f := &api.Fence{AgentTimeoutMS: tt.timeout.Milliseconds(), GraceS: 30}
			if tt.timeout%time.Millisecond != 0 {
				return // api.Fence carries milliseconds
			}
			after, grace, late := Default.Times(f, tt.hold, time.Second, false)
			if late != tt.late || after != tt.wantAfter || grace != tt.grace {
				t.Errorf("Times = after %s, grace %s, late %v; want %s, %s, %v", after, grace, late, tt.wantAfter, tt.grace, tt.late)
			}
		})
	}
}

// TestLeastTimeout: the least whole-second agent_timeout that is not
// late, which the master's warning names: 24 s with the master's default
// 10 s long poll and the agents' 1 s pace (docs/reliability.md).
func TestLeastTimeout(t *testing.T) {
	const s = time.Second
	tests := []struct {
		name       string
		hold, pace time.Duration
		b          Bounds
		want       time.Duration
	}{
		{"defaults", 10 * s, DefaultPollInterval, Default, 24 * s},
		{"short hold: the floor and the margin", 2 * s, DefaultPollInterval, Default, 7 * s},
		{"long hold", 60 * s, DefaultPollInterval, Default, 135 * s},
		{"shortened bounds", 0, 0, Bounds{Floor: 500 * time.Millisecond, Margin: 500 * time.Millisecond}, s + s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.b.LeastTimeout(tt.hold, tt.pace)
			if got != tt.want {
				t.Fatalf("LeastTimeout(%s, %s) = %s, want %s", tt.hold, tt.pace, got, tt.want)
			}
			if tt.b.Late(got, tt.hold, tt.pace) || !tt.b.Late(got-time.Second, tt.hold, tt.pace) {
				t.Errorf("%s is late: %v, a second less: %v; want not late and late", got,
					tt.b.Late(got, tt.hold, tt.pace), tt.b.Late(got-time.Second, tt.hold, tt.pace))
			}
		})
	}
}
