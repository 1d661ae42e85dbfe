package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/allot-sched/allot/store"
)

// testNodeDrain: a drain and its reason survive a reopen and a
// re-registration, draining again keeps when it began, resuming clears it,
// and a deleted node that registers again is a new node.
func testNodeDrain(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	gpus := []store.GPU{{Index: 0, UUID: "GPU-a", Type: "h100", MemoryMiB: 81559}}
	if _, err := s.UpsertNode(ctx, store.Node{Name: "gpu-1", Pool: "h100", GPUs: gpus, HeartbeatAt: at(time.Minute)}); err != nil {
		t.Fatalf("register node: %v", err)
	}
	drain := &store.NodeDrain{At: at(2 * time.Minute), Reason: "replace PSU", By: "root"}
	got, err := s.SetNodeDrain(ctx, "gpu-1", drain, drain.At)
	if err != nil {
		t.Fatalf("drain: %v", err)
	}
	wantEqual(t, "drained node's drain", got.Drain, drain)
	_, err = s.SetNodeDrain(ctx, "gpu-9", drain, drain.At)
	wantErr(t, err, store.ErrNotFound, "drain a missing node")

	// A master restart must find the node drained.
	s.Close()
	s = reopen(t, target, s)
	again := &store.NodeDrain{At: at(3 * time.Minute), Reason: "replace PSU and fan", By: "ops"}
	if got, err = s.SetNodeDrain(ctx, "gpu-1", again, again.At); err != nil {
		t.Fatalf("drain again: %v", err)
	}
	wantEqual(t, "drained-again node's drain", got.Drain,
		&store.NodeDrain{At: drain.At, Reason: again.Reason, By: again.By})
	// The agent restarting is no admin resuming the node.
	if got, err = s.UpsertNode(ctx, store.Node{Name: "gpu-1", Pool: "h100", GPUs: gpus, HeartbeatAt: at(4 * time.Minute)}); err != nil {
		t.Fatalf("re-register: %v", err)
	}
	if got.Drain == nil || got.Drain.Reason != again.Reason {
		t.Fatalf("re-registered node's drain %+v, want it kept", got.Drain)
	}
	if got, err = s.SetNodeDrain(ctx, "gpu-1", nil, at(5*time.Minute)); err != nil || got.Drain != nil {
		t.Fatalf("resume: node %+v, error %v; want no drain", got, err)
	}
	if _, err = s.SetNodeDrain(ctx, "gpu-1", nil, at(5*time.Minute)); err != nil {
		t.Fatalf("resume again: %v", err)
	}
	// The history has the drain and the resume, not the second drain
	// nor the second resume.
	_, hist := nodeHistory(t, s, at(2*time.Minute))
	wantEqual(t, "drain history", hist, []string{"gpu-1 schedulable->drained 2m0s", "gpu-1 drained->schedulable 5m0s"})
	nodes, err := s.Nodes(ctx)
	if err != nil || len(nodes) != 1 || nodes[0].Drain != nil || !nodes[0].HeartbeatAt.Equal(at(4*time.Minute)) {
		t.Fatalf("nodes %+v (error %v), want gpu-1 resumed with its heartbeat", nodes, err)
	}

	if err := s.DeleteNode(ctx, "gpu-1", at(5*time.Minute+30*time.Second)); err != nil {
		t.Fatalf("delete: %v", err)
	}
	wantErr(t, s.DeleteNode(ctx, "gpu-1", time.Time{}), store.ErrNotFound, "delete a deleted node")
	wantErr(t, s.DeleteNode(ctx, "gpu-9", time.Time{}), store.ErrNotFound, "delete a missing node")
	wantErr(t, s.Heartbeat(ctx, "gpu-1", at(5*time.Minute)), store.ErrNotFound, "heartbeat of a deleted node")
	if _, err := s.SetNodeDrain(ctx, "gpu-1", drain, drain.At); err == nil {
		t.Fatal("drained a deleted node")
	}
	got, err = s.UpsertNode(ctx, store.Node{Name: "gpu-1", Pool: "h100", GPUs: gpus, HeartbeatAt: at(6 * time.Minute)})
	if err != nil {
		t.Fatalf("register after delete: %v", err)
	}
	wantEqual(t, "node registered after its delete", got, store.Node{Name: "gpu-1", Pool: "h100", GPUs: gpus,
		State: store.NodeUp, RegisteredAt: at(6 * time.Minute), HeartbeatAt: at(6 * time.Minute)})
	testNodeDeletedHistory(t, target, s, gpus)
}

// testNodeDeletedHistory: the deletion of testNodeDrain's gpu-1 is in
// the node history, with what the node was, after a reopen (a master
// restart), and its registration after is a first one.
func testNodeDeletedHistory(t *testing.T, target Target, s store.Store, gpus []store.GPU) {
	s.Close()
	s = reopen(t, target, s)
	evs, hist := nodeHistory(t, s, at(5*time.Minute))
	wantEqual(t, "history around the delete", hist, []string{"gpu-1 drained->schedulable 5m0s",
		"gpu-1 up->deleted 5m30s", "gpu-1 ->up 6m0s"})
	if len(evs) == 3 {
		wantEqual(t, "deleted node", evs[1].Deleted, &store.Node{Name: "gpu-1", Pool: "h100", GPUs: gpus, State: store.NodeUp})
		wantEqual(t, "other events' deleted node", evs[0].Deleted, (*store.Node)(nil))
	}
}

// testNodeReshaped: a registration that changes a node's GPUs, labels or
// pool is in the node history (NodeReshaped, with the new shape), before
// the return of a node that was lost; one that changes nothing, or a
// heartbeat, is not, nor one that changes the labels in effect alone
// (a reload records those); a new node's registration keeps its shape.
// Each keeps the labels and pool in effect given, or the agent's where
// none are; the node's row keeps the agent's pool.
func testNodeReshaped(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	gpu := func(i int, typ string) store.GPU {
		return store.GPU{Index: i, UUID: fmt.Sprintf("GPU-%d", i), Type: typ, MemoryMiB: 81559}
	}
	four := []store.GPU{gpu(0, "h100"), gpu(1, "h100"), gpu(2, "h100"), gpu(3, "h100")}
	two := []store.GPU{gpu(0, "a100"), gpu(1, "a100")}
	r2 := map[string]string{"rack": "r2"}
	ruled := map[string]string{"rack": "r2", "switch": "s1"}
	regs := []struct {
		name string
		node store.Node
		lose bool // lose the node before this registration
	}{
		{"new", store.Node{Pool: "h100", GPUs: four}, false},
		{"same again", store.Node{Pool: "h100", GPUs: four}, false},
		{"same again, other labels in effect", store.Node{Pool: "h100", GPUs: four, InEffect: r2}, false},
		{"fewer GPUs of another type", store.Node{Pool: "h100", GPUs: two, InEffect: map[string]string{}}, false},
		{"labelled", store.Node{Pool: "h100", GPUs: two, Labels: r2, InEffect: ruled}, false},
		{"another pool, after a loss", store.Node{Pool: "a100", GPUs: two, Labels: map[string]string{"rack": "r2"}}, true},
		{"back after a loss as it was", store.Node{Pool: "a100", GPUs: two, Labels: map[string]string{"rack": "r2"}}, true},
		// A node rule pins the node to a100 while its agent asks for own.
		{"its agent's pool, pinned", store.Node{Pool: "own", PoolInEffect: "a100", GPUs: two, Labels: map[string]string{"rack": "r2"}}, false},
	}
	for i, r := range regs {
		when := at(time.Duration(i+1) * time.Minute)
		if r.lose {
			if err := s.SetNodeState(ctx, "gpu-1", store.NodeUp, store.NodeLost, when.Add(-time.Second)); err != nil {
				t.Fatalf("%s: lose: %v", r.name, err)
			}
		}
		r.node.Name, r.node.HeartbeatAt = "gpu-1", when
		if _, err := s.UpsertNode(ctx, r.node); err != nil {
			t.Fatalf("%s: register: %v", r.name, err)
		}
		if err := s.Heartbeat(ctx, "gpu-1", when.Add(10*time.Second)); err != nil {
			t.Fatalf("%s: heartbeat: %v", r.name, err)
		}
	}
	s.Close()
	s = open(t, target)
	evs, err := s.NodeEvents(ctx, store.NodeEventFilter{})
	if err != nil {
		t.Fatalf("node events: %v", err)
	}
	wantEqual(t, "history of the registrations", registrations(evs), []string{
		"->up 1m0s h100 4 h100 map[] in effect h100 map[]",
		"up->reshaped 4m0s h100 2 a100 map[] in effect h100 map[]",
		"up->reshaped 5m0s h100 2 a100 map[rack:r2] in effect h100 map[rack:r2 switch:s1]",
		"up->lost 5m59s",
		"lost->reshaped 6m0s a100 2 a100 map[rack:r2] in effect a100 map[rack:r2]",
		"lost->up 6m0s",
		"up->lost 6m59s",
		"lost->up 7m0s",
		"up->reshaped 8m0s own 2 a100 map[rack:r2] in effect a100 map[rack:r2]",
	})
	if len(evs) > 2 {
		wantEqual(t, "reshaped node", evs[1].Shape, &store.Node{Name: "gpu-1", Pool: "h100", GPUs: two, InEffect: map[string]string{},
			PoolInEffect: "h100"})
	}
	for _, e := range evs {
		if e.Shape != nil && e.Shape.InEffect == nil {
			t.Errorf("%s → %s at %s: no labels in effect recorded", e.From, e.To, e.At.Sub(at(0)))
		}
	}
	nodes, err := s.Nodes(ctx)
	if err != nil {
		t.Fatalf("nodes: %v", err)
	}
	if len(nodes) != 1 || nodes[0].Pool != "own" || nodes[0].PoolInEffect != "" {
		t.Errorf("nodes %+v, want gpu-1 with its agent's pool own alone", nodes)
	}
}

// registrations describes node events in a line each: the edge, when,
// and for a registration's the shape it kept, agent's and in effect.
func registrations(evs []store.NodeEvent) []string {
	var hist []string
	for _, e := range evs {
		line := fmt.Sprintf("%s->%s %s", e.From, e.To, e.At.Sub(at(0)))
		if e.Shape != nil {
			line += fmt.Sprintf(" %s %d %s %v in effect %s %v", e.Shape.Pool, len(e.Shape.GPUs), e.Shape.GPUs[0].Type, e.Shape.Labels,
				e.Shape.PoolInEffect, e.Shape.InEffect)
		}
		hist = append(hist, line)
	}
	return hist
}

// testNodeMoves: a reload's moves are in the node history (From
// NodeReconfigured To NodeRelabeled, the node's GPUs with the configured
// pool and labels), the node keeps its own pool and labels, and a move
// naming an unknown node records none of the moves given with it.
func testNodeMoves(t *testing.T, target Target) {
	s := open(t, target)
	ctx := ctxOf(t)
	gpus := []store.GPU{{Index: 0, UUID: "GPU-0", Type: "h100", MemoryMiB: 81559}}
	for _, name := range []string{"gpu-1", "gpu-2"} {
		n := store.Node{Name: name, Pool: "a", GPUs: gpus, Labels: map[string]string{"rack": "r1"}, HeartbeatAt: at(time.Minute)}
		if _, err := s.UpsertNode(ctx, n); err != nil {
			t.Fatalf("register %s: %v", name, err)
		}
	}
	cases := []struct {
		name    string
		moves   []store.NodeMove
		wantErr error
	}{
		{"an unknown node among them", []store.NodeMove{{Node: "gpu-1", Pool: "b"}, {Node: "gpu-9", Pool: "b"}}, store.ErrNotFound},
		{"two nodes", []store.NodeMove{{Node: "gpu-1", Pool: "b", Labels: map[string]string{"rack": "r1"}},
			{Node: "gpu-2", Pool: "c", Labels: map[string]string{"rack": "r1", "switch": "s2"}}}, nil},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.MoveNodes(ctx, c.moves, at(time.Duration(i+2)*time.Minute))
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("move: got %v, want %v", err, c.wantErr)
			}
		})
	}
	s.Close()
	s = open(t, target)
	evs, err := s.NodeEvents(ctx, store.NodeEventFilter{})
	if err != nil {
		t.Fatalf("node events: %v", err)
	}
	var hist []string
	for _, e := range evs {
		line := fmt.Sprintf("%s %s->%s %s", e.Node, e.From, e.To, e.At.Sub(at(0)))
		if e.Shape != nil {
			line += fmt.Sprintf(" %s %d %v in effect %v", e.Shape.Pool, len(e.Shape.GPUs), e.Shape.Labels, e.Shape.InEffect)
		}
		hist = append(hist, line)
	}
	// A move's labels are those in effect: it keeps no InEffect.
	wantEqual(t, "history of the moves", hist, []string{
		"gpu-1 ->up 1m0s a 1 map[rack:r1] in effect map[rack:r1]",
		"gpu-2 ->up 1m0s a 1 map[rack:r1] in effect map[rack:r1]",
		"gpu-1 reconfigured->relabeled 3m0s b 1 map[rack:r1] in effect map[]",
		"gpu-2 reconfigured->relabeled 3m0s c 1 map[rack:r1 switch:s2] in effect map[]",
	})
	for _, e := range evs {
		if e.To == store.NodeRelabeled && e.Shape.InEffect != nil {
			t.Errorf("%s's move has labels in effect %v beside its labels", e.Node, e.Shape.InEffect)
		}
	}
	nodes, err := s.Nodes(ctx)
	if err != nil {
		t.Fatalf("nodes: %v", err)
	}
	for _, n := range nodes {
		wantEqual(t, n.Name+"'s own pool", n.Pool, "a")
		wantEqual(t, n.Name+"'s own labels", fmt.Sprint(n.Labels), "map[rack:r1]")
	}
}

// nodeHistory reads the node history from since (zero: all of it), and
// writes each event as "node from->to offset", the offset from at(0).
func nodeHistory(t *testing.T, s store.Store, since time.Time) ([]store.NodeEvent, []string) {
	t.Helper()
	evs, err := s.NodeEvents(ctxOf(t), store.NodeEventFilter{Since: since})
	if err != nil {
		t.Fatalf("node events: %v", err)
	}
	var hist []string
	for _, e := range evs {
		hist = append(hist, fmt.Sprintf("%s %s->%s %s", e.Node, e.From, e.To, e.At.Sub(at(0))))
	}
	return evs, hist
}
