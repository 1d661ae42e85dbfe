package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestNodeEventsBeforePoolInEffect: a registration's node event written
// before migration 0017 (no pool_in_effect) kept the pool the master put
// the node in, in pool, and reads it as both; one written since reads
// the agent's pool and the pool in effect apart, in both dialects.
func TestNodeEventsBeforePoolInEffect(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s := openRaw(t, b.dsn(t), t.TempDir())
			at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			if _, err := s.w.ExecContext(ctx, s.d.q(`INSERT INTO node_events (node, from_state, to_state, at_ns, pool, labels, gpus)
				VALUES ('old', '', 'up', ?, 'b', '{}', '[{"Index":0,"Type":"h100"}]')`), at.UnixNano()); err != nil {
				t.Fatal(err)
			}
			gpus := []GPU{{Index: 0, Type: "h100"}}
			for _, n := range []Node{
				{Name: "own", Pool: "a", GPUs: gpus, HeartbeatAt: at.Add(time.Second)},
				{Name: "pinned", Pool: "a", PoolInEffect: "b", GPUs: gpus, HeartbeatAt: at.Add(2 * time.Second)},
			} {
				if _, err := s.UpsertNode(ctx, n); err != nil {
					t.Fatal(err)
				}
			}
			evs, err := s.NodeEvents(ctx, NodeEventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range evs {
				if e.Shape == nil {
					t.Fatalf("%s's registration has no shape", e.Node)
				}
				got = append(got, fmt.Sprintf("%s %s in %s", e.Node, e.Shape.Pool, e.Shape.PoolInEffect))
			}
			if want := fmt.Sprint([]string{"old b in b", "own a in a", "pinned a in b"}); fmt.Sprint(got) != want {
				t.Errorf("registrations read\n got %v\nwant %v", got, want)
			}
		})
	}
}
