package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// readRegistrations inserts a registration's node event as a store from
// before a migration wrote it (insert, its values after at_ns), upserts
// nodes since, and describes each registration read back.
func readRegistrations(t *testing.T, b backend, insert string, nodes []Node, describe func(NodeEvent) string) []string {
	t.Helper()
	ctx := context.Background()
	s := openRaw(t, b.dsn(t), t.TempDir())
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if _, err := s.w.ExecContext(ctx, s.d.q(insert), at.UnixNano()); err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		n.GPUs, n.HeartbeatAt = []GPU{{Index: 0, Type: "h100"}}, at.Add(time.Duration(i+1)*time.Second)
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
		got = append(got, describe(e))
	}
	return got
}

// TestNodeEventsBeforeLabelsInEffect: a registration's node event
// written before migration 0016 (no labels_in_effect) reads with no
// labels in effect (Node.InEffect nil), which the master tells from one
// recorded with none, in both dialects; one written since reads them.
func TestNodeEventsBeforeLabelsInEffect(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			got := readRegistrations(t, b, `INSERT INTO node_events (node, from_state, to_state, at_ns, pool, labels, gpus)
				VALUES ('old', '', 'up', ?, 'a', '{"rack":"r1"}', '[{"Index":0,"Type":"h100"}]')`,
				[]Node{{Name: "new", Pool: "a"}, {Name: "ruled", Pool: "a", Labels: map[string]string{"rack": "r1"},
					InEffect: map[string]string{"rack": "r1", "switch": "s1"}}},
				func(e NodeEvent) string {
					return fmt.Sprintf("%s %v %v recorded=%t", e.Node, e.Shape.Labels, e.Shape.InEffect, e.Shape.InEffect != nil)
				})
			want := fmt.Sprint([]string{"old map[rack:r1] map[] recorded=false", "new map[] map[] recorded=true",
				"ruled map[rack:r1] map[rack:r1 switch:s1] recorded=true"})
			if fmt.Sprint(got) != want {
				t.Errorf("registrations read\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestNodeEventsBeforePoolInEffect: a registration's node event written
// before migration 0017 (no pool_in_effect) kept the pool the master put
// the node in, in pool, and reads it as both; one written since reads
// the agent's pool and the pool in effect apart, in both dialects.
func TestNodeEventsBeforePoolInEffect(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			got := readRegistrations(t, b, `INSERT INTO node_events (node, from_state, to_state, at_ns, pool, labels, gpus)
				VALUES ('old', '', 'up', ?, 'b', '{}', '[{"Index":0,"Type":"h100"}]')`,
				[]Node{{Name: "own", Pool: "a"}, {Name: "pinned", Pool: "a", PoolInEffect: "b"}},
				func(e NodeEvent) string {
					return fmt.Sprintf("%s %s in %s", e.Node, e.Shape.Pool, e.Shape.PoolInEffect)
				})
			if want := fmt.Sprint([]string{"old b in b", "own a in a", "pinned a in b"}); fmt.Sprint(got) != want {
				t.Errorf("registrations read\n got %v\nwant %v", got, want)
			}
		})
	}
}
