package agentd

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer collects the agent's log for a test to read.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestReRegistersSoonAfterMasterRestart: after an outage long enough for
// the backoff to reach its cap, a master that comes back without the node
// (404) is registered with again on short retries, not at the outage's
// pace, and why a registration failed is logged at warn level once, not
// per retry.
func TestReRegistersSoonAfterMasterRestart(t *testing.T) {
	for _, c := range []struct {
		name      string
		failures  int // registrations refused (503) before one is taken
		wantWarns int // warn lines naming the reason
	}{
		{"taken at once", 0, 0},
		{"store not ready", 3, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			logs := &syncBuffer{}
			cfg := testConfig(t, fm, t.TempDir())
			cfg.BackoffMin, cfg.BackoffMax = 10*time.Millisecond, time.Second
			cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
			startAgent(t, cfg)
			fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == 1 })
			// Down long enough for the backoff to reach its cap.
			fm.set(func(fm *fakeMaster) { fm.down = true })
			time.Sleep(2500 * time.Millisecond)
			fm.set(func(fm *fakeMaster) { fm.down, fm.known, fm.failRegisters = false, false, c.failures })
			fm.waitFor("a second registration", func(fm *fakeMaster) bool { return len(fm.registers) == 2 })
			fm.locked(func(fm *fakeMaster) {
				// The outage's pace would take at least 3 x 0.5 s.
				if took := fm.registeredAt.Sub(fm.notFoundAt); took > 750*time.Millisecond {
					t.Errorf("registered again %v after the master answered 404, want under 750ms", took)
				}
			})
			warns := 0
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, "level=WARN") && strings.Contains(l, "store is unavailable") {
					warns++
				}
			}
			if warns != c.wantWarns {
				t.Errorf("%d warn lines naming the refusal, want %d; log:\n%s", warns, c.wantWarns, logs.String())
			}
		})
	}
}
