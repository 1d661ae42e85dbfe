package storetest

import (
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testNodeLeaving: an agent's goodbye is in the node history (From up To
// NodeLeaving, at its time) across a reopen, and leaves the node's row
// alone: it stays up.
func testNodeLeaving(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	gpus := []store.GPU{{Index: 0, UUID: "GPU-0", Type: "h100", MemoryMiB: 81559}}
	if _, err := s.UpsertNode(ctx, store.Node{Name: "gpu-1", Pool: "a", GPUs: gpus, HeartbeatAt: at(time.Minute)}); err != nil {
		t.Fatalf("register: %v", err)
	}
	if err := s.NodeLeaving(ctx, "gpu-1", at(2*time.Minute)); err != nil {
		t.Fatalf("leaving: %v", err)
	}
	if err := s.SetNodeState(ctx, "gpu-1", store.NodeUp, store.NodeLeft, at(3*time.Minute)); err != nil {
		t.Fatalf("left: %v", err)
	}
	s.Close()
	s = open(t, target)
	_, hist := nodeHistory(t, s, time.Time{})
	wantEqual(t, "history of the leave", hist, []string{"gpu-1 ->up 1m0s", "gpu-1 up->leaving 2m0s", "gpu-1 up->left 3m0s"})
	nodes, err := s.Nodes(ctx)
	if err != nil {
		t.Fatalf("nodes: %v", err)
	}
	wantEqual(t, "nodes", len(nodes), 1)
	wantEqual(t, "the node's state", nodes[0].State, store.NodeLeft)
}

// testNodeStayed: an agent that registers again while leaving, its node
// up, ends the leave in the node history (From NodeLeaving To up, at its
// time) across a reopen; the node's row stays up.
func testNodeStayed(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	gpus := []store.GPU{{Index: 0, UUID: "GPU-0", Type: "h100", MemoryMiB: 81559}}
	reg := store.Node{Name: "gpu-1", Pool: "a", GPUs: gpus, HeartbeatAt: at(time.Minute)}
	if _, err := s.UpsertNode(ctx, reg); err != nil {
		t.Fatalf("register: %v", err)
	}
	if err := s.NodeLeaving(ctx, "gpu-1", at(2*time.Minute)); err != nil {
		t.Fatalf("leaving: %v", err)
	}
	err := s.Update(ctx, func(tx store.Tx) error {
		reg.HeartbeatAt = at(3 * time.Minute)
		if _, err := tx.UpsertNode(ctx, reg); err != nil {
			return err
		}
		return tx.NodeStayed(ctx, "gpu-1", at(3*time.Minute))
	})
	if err != nil {
		t.Fatalf("registered again: %v", err)
	}
	s.Close()
	s = open(t, target)
	_, hist := nodeHistory(t, s, time.Time{})
	wantEqual(t, "history of the leave", hist, []string{"gpu-1 ->up 1m0s", "gpu-1 up->leaving 2m0s", "gpu-1 leaving->up 3m0s"})
	nodes, err := s.Nodes(ctx)
	if err != nil {
		t.Fatalf("nodes: %v", err)
	}
	wantEqual(t, "nodes", len(nodes), 1)
	wantEqual(t, "the node's state", nodes[0].State, store.NodeUp)
}
