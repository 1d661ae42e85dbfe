package agentd

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestOutageLimit: while the master was last heard less than its agent
// timeout ago, no delay before a try exceeds outageRetryMax; past it, or
// before any contact, the backoff's own bound stands.
func TestOutageLimit(t *testing.T) {
	const s = time.Second
	last := time.Now()
	short := &api.Fence{AgentTimeoutMS: 6000}
	tests := []struct {
		name  string
		last  time.Time
		f     *api.Fence
		after time.Duration // from last to now
		want  time.Duration
	}{
		{"no contact yet", time.Time{}, nil, 0, 30 * s},
		{"just after the contact", last, nil, 100 * time.Millisecond, outageRetryMax},
		{"within the default agent timeout", last, nil, 29 * s, outageRetryMax},
		{"past the default agent timeout: half of it", last, nil, 30 * s, 15 * s},
		{"long past the default agent timeout: half of it still", last, nil, 10 * time.Minute, 15 * s},
		{"within the master's own agent timeout", last, short, 5 * s, outageRetryMax},
		{"past the master's own agent timeout: half of it", last, short, 6 * s, 3 * s},
		{"a tiny agent timeout: not under outageRetryMax", last, &api.Fence{AgentTimeoutMS: 1000}, 2 * s, outageRetryMax},
		{"a fence that says no timeout: the default", last, &api.Fence{}, 29 * s, outageRetryMax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := outageLimit(tt.last, tt.f, last.Add(tt.after), 30*s); got != tt.want {
				t.Errorf("outageLimit %s after the contact = %s, want %s", tt.after, got, tt.want)
			}
		})
	}
	if got := outageLimit(last, nil, last, 200*time.Millisecond); got != 200*time.Millisecond {
		t.Errorf("outageLimit under a BackoffMax of 200ms = %s, want 200ms", got)
	}
}

// TestBackoffWithin: a bound cuts the delays to [limit/2, limit], with
// their jitter, so that nodes whose delays are all cut do not all try
// at once; the failures go on doubling the backoff meanwhile, so that a
// bound lifted (a long outage) finds it grown.
func TestBackoffWithin(t *testing.T) {
	const limit = time.Second
	b := newBackoff(250*time.Millisecond, 30*time.Second, 7)
	seen := map[time.Duration]bool{}
	for i := range 12 {
		d := b.nextWithin(limit)
		want := min(250*time.Millisecond<<i, limit)
		if d < want/2 || d > want {
			t.Errorf("delay %d = %s, want within [%s, %s]", i, d, want/2, want)
		}
		if want == limit {
			seen[d] = true
		}
	}
	if len(seen) < 5 {
		t.Errorf("the cut delays took %d values, want them spread by the jitter: %v", len(seen), seen)
	}
	if d := b.next(); d < 15*time.Second {
		t.Errorf("the delay once no longer cut = %s, want the backoff's grown one, 15s to 30s", d)
	}
}

// TestBackSoonAfterAShortOutage: a master restarted within its agent
// timeout hears from the node within about outageRetryMax, whatever
// the backoff had grown to (here 10 s to 20 s from the first failure, as
// a trial's agents had after failures=6..7 and came back up to 4.3 s
// late): the node registers again soon after the master is back.
func TestBackSoonAfterAShortOutage(t *testing.T) {
	fm := newFakeMaster(t)
	cfg := testConfig(t, fm, t.TempDir())
	cfg.BackoffMin, cfg.BackoffMax = 20*time.Second, 20*time.Second
	startAgent(t, cfg)
	fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == 1 })

	fm.set(func(fm *fakeMaster) { fm.down = true })
	// Each try comes at most outageRetryMax after the one before; the
	// backoff alone would wait 10 s at least.
	fm.waitFor("three refused tries", func(fm *fakeMaster) bool { return fm.refused >= 3 })
	var back time.Time
	fm.set(func(fm *fakeMaster) { fm.down, fm.known, back = false, false, time.Now() })
	fm.waitFor("a second registration", func(fm *fakeMaster) bool { return len(fm.registers) == 2 })
	fm.locked(func(fm *fakeMaster) {
		// One delay of at most outageRetryMax (1 s), then the 404 and the
		// registration; the slack is for a loaded machine, far below the
		// backoff's 10 s.
		if took := fm.registeredAt.Sub(back); took > 3*time.Second {
			t.Errorf("registered again %s after the master came back, want within 1s and the exchange", took)
		}
	})
}
