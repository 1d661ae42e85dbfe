package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestNodeEventsBeforeLabelsInEffect: a registration's node event
// written before migration 0016 (no labels_in_effect) reads with no
// labels in effect (Node.InEffect nil), which the master tells from one
// recorded with none, in both dialects; one written since reads them.
func TestNodeEventsBeforeLabelsInEffect(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s := openRaw(t, b.dsn(t), t.TempDir())
			at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			if _, err := s.w.ExecContext(ctx, s.d.q(`INSERT INTO node_events (node, from_state, to_state, at_ns, pool, labels, gpus)
				VALUES ('old', '', 'up', ?, 'a', '{"rack":"r1"}', '[{"Index":0,"Type":"h100"}]')`), at.UnixNano()); err != nil {
				t.Fatal(err)
			}
			gpus := []GPU{{Index: 0, Type: "h100"}}
			for _, n := range []Node{
				{Name: "new", Pool: "a", GPUs: gpus, HeartbeatAt: at.Add(time.Second)},
				{Name: "ruled", Pool: "a", GPUs: gpus, Labels: map[string]string{"rack": "r1"},
					InEffect: map[string]string{"rack": "r1", "switch": "s1"}, HeartbeatAt: at.Add(2 * time.Second)},
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
				got = append(got, fmt.Sprintf("%s %v %v recorded=%t", e.Node, e.Shape.Labels, e.Shape.InEffect, e.Shape.InEffect != nil))
			}
			want := fmt.Sprint([]string{"old map[rack:r1] map[] recorded=false", "new map[] map[] recorded=true",
				"ruled map[rack:r1] map[rack:r1 switch:s1] recorded=true"})
			if fmt.Sprint(got) != want {
				t.Errorf("registrations read\n got %v\nwant %v", got, want)
			}
		})
	}
}
