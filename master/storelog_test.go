package master

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/storetest"
)

func (s *flakyStore) AppendAudit(ctx context.Context, e store.AuditEntry) error {
	if s.Down.Load() {
		return errStoreDown
	}
	return s.Store.AppendAudit(ctx, e)
}

// TestStoreOutageLogsOnce: a store outage is logged once when it begins
// and once when it ends, with the count of the requests refused
// meanwhile; the refusals themselves, and the audit entries the store
// could not take, are not logged one by one above debug level.
func TestStoreOutageLogsOnce(t *testing.T) {
	var flaky *flakyStore
	logs := &lockedBuffer{}
	h := newHarness(t, func(o *Options) {
		flaky = &flakyStore{&storetest.Flaky{Store: o.Store}}
		o.Store = flaky
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	h.m.health.minGap = 0
	h.agent("n1", 1)
	logs.take()

	flaky.Down.Store(true)
	h.m.Tick(h.ctx)
	for _, c := range []struct{ name, method, path, body string }{
		{"submit", "POST", "/api/v1/jobs", jobSpec("a", 1, "")},
		{"submit again", "POST", "/api/v1/jobs", jobSpec("b", 1, "")},
		{"an agent's sync", "POST", "/api/v1/agents/n1/sync", `{"running": []}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code := h.do(c.method, c.path, c.body, nil); code != 503 {
				t.Fatalf("%s %s: %d, want 503", c.method, c.path, code)
			}
		})
	}
	h.m.Tick(h.ctx) // the loop's probes of the failing store say nothing more
	h.m.Tick(h.ctx)
	lines := logs.take()
	if len(lines) != 1 || !strings.Contains(lines[0], "store unavailable") {
		t.Fatalf("log during the outage:\n%s\nwant one line saying the store is unavailable", strings.Join(lines, "\n"))
	}

	flaky.Down.Store(false)
	h.m.Tick(h.ctx)
	lines = logs.take()
	if len(lines) != 1 || !strings.Contains(lines[0], "store available again: refused 3 requests") {
		t.Fatalf("log at recovery:\n%s\nwant one line counting 3 refused requests", strings.Join(lines, "\n"))
	}
}
