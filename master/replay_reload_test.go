package master

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Nodes moved to another pool by a configuration reload whose node
// rules pin them elsewhere (reload.go): no agent registers, and the
// node history keeps the move (store.MoveNodes), which the export
// writes as a node_reshape with the new pool, the node in its pool
// before in the file (whatif_reshaped.go), as for an agent that
// registered again in another pool (replay_reshape_test.go).

// rreload is a reload, at at, of the configuration file config; with
// restart, a restart of the master on it instead.
type rreload struct {
	at      float64
	config  string
	restart bool
}

// reloadable gives the master of a case with reloads a configuration
// file, of the case's configuration, to reload.
func reloadable(t *testing.T, c replayCase) harnessOption {
	if len(c.reloads) == 0 {
		return func(*Options) {}
	}
	path := filepath.Join(t.TempDir(), "allot.yaml")
	if err := os.WriteFile(path, []byte(c.config), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(o *Options) { o.ConfigPath = path }
}

// reloadConfigs writes and reloads the configurations that are due, as
// an admin's allot config reload.
func (d *replayDriver) reloadConfigs(t *testing.T, now float64) {
	for d.reloaded < len(d.c.reloads) && d.c.reloads[d.reloaded].at <= now+1e-9 {
		r := d.c.reloads[d.reloaded]
		d.reloaded++
		if d.c.eager {
			d.h.clock.Advance(time.Millisecond) // as for a drain (drainNodes)
		}
		if err := os.WriteFile(d.h.m.opt.ConfigPath, []byte(r.config), 0o644); err != nil {
			t.Fatal(err)
		}
		if r.restart {
			d.h.opt.Config = mustConfig(t, r.config)
			d.restartNow(t)
		} else if err := d.h.m.Reload(d.h.ctx); err != nil {
			t.Fatal(err)
		}
		if d.c.eager {
			d.settle(t)
		}
	}
}

// movePoolsN2 is movePools with n2 pinned to b too.
const movePoolsN2 = movePools + "  - {name: n2, pool: b}\n"

// reloadMoveCases: a reload at 100 pins n2 to pool b while d runs
// there: d runs on, and from d's end at 500 n2's slots are b's: x
// starts there then, not w, which waits for a's end on n1, and y on
// n3 at c's end, as when n2's agent registers again in b
// (poolMoveCases). A replay that read n2's pool under the rules in
// force at the end would have it in b from the start, and start x on it
// at once.
func reloadMoveCases() []replayCase {
	return []replayCase{
		{name: "fifo-reload-moves-node", config: movePools, nodes: replayNodes, jobs: poolMoveJobs,
			reloads: []rreload{{at: 100, config: movePoolsN2}}},
		// A reload at 520 puts n2 back in default, where z starts on it
		// at 550. n3 has two GPUs (the export used to leave out a job
		// larger than its pool now, as x would have been).
		{name: "fifo-reload-moves-node-and-back", config: movePools, nodes: []rnode{{"n1", 4}, {"n2", 2}, {"n3", 2}},
			jobs:    append(slices.Clone(poolMoveJobs), rjob{name: "z", slots: 2, submit: 550, run: 100}),
			reloads: []rreload{{at: 100, config: movePoolsN2}, {at: 520, config: movePools}}},
		// n2 is drained at 50 and moved drained, d on it: it stays
		// drained in b until resumed at 600, when x starts there.
		{name: "fifo-reload-moves-drained-node", config: movePools, nodes: replayNodes, jobs: poolMoveJobs,
			drains: []rdown{{node: "n2", at: 50, back: 600}}, reloads: []rreload{{at: 100, config: movePoolsN2}}},
	}
}

// movePoolsN2Own is movePools with n2 pinned to default, its agent's
// pool.
const movePoolsN2Own = movePools + "  - {name: n2, pool: default}\n"

// reloadPinCases: pins that move nothing, and the end of a pin that
// the history began under. A registration keeps in the node's row its
// agent's pool, and in the history the pool the rules in force give it
// beside it (store.Node's PoolInEffect): the end of a pin puts the node
// back in its agent's pool, and the reload records that move
// (replay_unpin_test.go has more).
func reloadPinCases() []replayCase {
	return []replayCase{
		// A reload at 50 pins n2 to default, the pool it is in; its
		// agent registers again in b at 100, and n2 stays in default,
		// the pool its registration records in effect; the reload at 520
		// that ends the pin puts it in b, its agent's: y, which waits
		// from 160, starts on it then.
		{name: "fifo-reload-pins-node-in-its-pool", config: movePools, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 300},
			{name: "d", slots: 2, submit: 0, run: 500},
			{name: "c", slots: 1, submit: 0, run: 700, pool: "b"},
			{name: "y", slots: 1, submit: 160, run: 100, pool: "b"},
		},
			reshapes: []rdown{{node: "n2", at: 100, pool: "b"}},
			reloads:  []rreload{{at: 50, config: movePoolsN2Own}, {at: 520, config: movePools}}},
		// The master starts with n2 pinned to b, where it registers: x
		// starts on it at 150; the reload at 520 that ends the pin puts
		// it in default, as its agent asked for no pool, and z starts
		// at 550 on n1 or n2. n3 has two GPUs (the export used to leave out
		// a job larger than its pool now, as x would have been).
		{name: "fifo-reload-unpins-node-first", config: movePoolsN2, nodes: []rnode{{"n1", 4}, {"n2", 2}, {"n3", 2}},
			jobs:    append(slices.Clone(poolMoveJobs), rjob{name: "z", slots: 2, submit: 550, run: 100}),
			reloads: []rreload{{at: 520, config: movePools}}},
	}
}

// TestReplayReloadPinsNode: the pins of reloadPinCases replay byte for
// byte, batched and live.
func TestReplayReloadPinsNode(t *testing.T) {
	checkBatchedAndLive(t, reloadPinCases())
}

// restartMoveCases: a master restarted at 100 on a configuration that
// pins n2 to b (restore.go) while d runs there, as a reload would
// (reloadMoveCases).
func restartMoveCases() []replayCase {
	return []replayCase{
		{name: "fifo-restart-moves-node", config: movePools, nodes: replayNodes, jobs: poolMoveJobs,
			reloads: []rreload{{at: 100, config: movePoolsN2, restart: true}}},
	}
}

// TestReplayRestartMovesNode: the cases of restartMoveCases replay byte
// for byte, batched and live.
func TestReplayRestartMovesNode(t *testing.T) {
	checkBatchedAndLive(t, restartMoveCases())
}

// TestReplayReloadMovesNode: a node moved to another pool by a reload
// while its tasks run and jobs wait in both pools replays byte for
// byte, batched and live.
func TestReplayReloadMovesNode(t *testing.T) {
	checkBatchedAndLive(t, reloadMoveCases())
}
