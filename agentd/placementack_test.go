package agentd

import (
	"context"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

const movedLine = "the master moved this node to pool research (it was in training)"

// TestSyncPlacementAck: each sync acknowledges the placement generation
// the agent heard last, so that when the reply that carries a move is
// lost, the next sync still acknowledges the old one and the master
// repeats the move, which the agent then logs once; a master without
// generations (older than them) gets none, and its move is taken as
// before.
func TestSyncPlacementAck(t *testing.T) {
	cases := []struct {
		name    string
		gen     int64 // the master's generation after the move; 0: an old master
		drop    int   // sync replies lost
		acks    []int64
		movedAt int // the sync (from 1) whose reply the move is logged at
	}{
		{"acknowledged: heard once", 2, 0, []int64{1, 2, 2}, 1},
		{"a lost reply: the next sync hears the move", 2, 1, []int64{1, 1, 2}, 2},
		{"two lost replies", 2, 2, []int64{1, 1, 1, 2}, 3},
		{"an old master: no generation, the move once", 0, 0, []int64{0, 0}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			fm.syncWaitS = 0
			fm.placement = api.NodePlacement{Pool: "training"}
			if tc.gen > 0 {
				fm.placeGen = 1
			}
			a, buf := loggedAgent(t, fm)
			ctx := context.Background()
			if err := (&registrar{a: a}).register(ctx); err != nil {
				t.Fatal(err)
			}
			fm.set(func(fm *fakeMaster) {
				fm.movedTo = &api.NodePlacement{Pool: "research"}
				fm.placeGen, fm.dropReplies = tc.gen, tc.drop
			})
			for i, want := range tc.acks {
				buf.Reset()
				_, err := a.syncOnce(ctx, 0)
				if lost := i < tc.drop; lost != (err != nil) {
					t.Fatalf("sync %d: %v; want a lost reply: %v", i+1, err, lost)
				}
				fm.mu.Lock()
				got := fm.syncs[len(fm.syncs)-1].PlacementGen
				fm.mu.Unlock()
				if got != want {
					t.Errorf("sync %d acknowledged placement generation %d, want %d", i+1, got, want)
				}
				if !loggedMove(buf.String(), i+1 == tc.movedAt) {
					t.Errorf("sync %d: want the move logged at sync %d and nothing else; log:\n%s", i+1, tc.movedAt, buf)
				}
			}
			if p := a.Placement(); p.Pool != "research" {
				t.Errorf("placement %+v, want pool research", p)
			}
		})
	}
}

// TestPlaced: a sync reply's placement is taken, and a change of it
// logged, unless the reply is older than what the agent has: of a lower
// generation, or sent before a registration since. The same placement
// again (the master repeats it until acknowledged, and two syncs may be
// in flight) is not logged again; a generation alone moves the
// acknowledgement on.
func TestPlaced(t *testing.T) {
	training := api.NodePlacement{Pool: "training"}
	research := api.NodePlacement{Pool: "research"}
	cases := []struct {
		name     string
		has      api.NodePlacement
		hasGen   int64
		sentGen  int // the registration the sync was sent in; the agent's is 3
		reply    api.SyncReply
		want     api.NodePlacement
		wantGen  int64
		wantLine bool
	}{
		{"a move of a newer generation", training, 5, 3, api.SyncReply{PlacementGen: 6, Placement: &research}, research, 6, true},
		{"the same move again", research, 6, 3, api.SyncReply{PlacementGen: 6, Placement: &research}, research, 6, false},
		{"a newer generation alone", training, 5, 3, api.SyncReply{PlacementGen: 7}, training, 7, false},
		{"an older generation", training, 5, 3, api.SyncReply{PlacementGen: 4, Placement: &research}, training, 5, false},
		{"sent before a registration since", training, 5, 2, api.SyncReply{PlacementGen: 6, Placement: &research}, training, 5, false},
		{"a master without generations", training, 0, 3, api.SyncReply{Placement: &research}, research, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, buf := loggedAgent(t, newFakeMaster(t))
			a.mu.Lock()
			a.gen, a.placement, a.placeGen = 3, tc.has, tc.hasGen
			a.mu.Unlock()
			a.placed(context.Background(), tc.sentGen, tc.reply)
			a.mu.Lock()
			got, gotGen := a.placement, a.placeGen
			a.mu.Unlock()
			if !samePlacement(got, tc.want) || gotGen != tc.wantGen {
				t.Errorf("placement %+v generation %d, want %+v generation %d", got, gotGen, tc.want, tc.wantGen)
			}
			if !loggedMove(buf.String(), tc.wantLine) {
				t.Errorf("want the move logged: %v, and nothing else; log:\n%s", tc.wantLine, buf)
			}
		})
	}
}

// loggedMove reports whether log is the move to research (moved) or
// nothing (not moved).
func loggedMove(log string, moved bool) bool {
	if moved {
		return strings.Contains(log, movedLine)
	}
	return log == ""
}
