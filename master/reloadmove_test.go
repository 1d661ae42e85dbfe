package master

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/store"
)

// moveFailStore fails recording a reload's moves while failing is set.
type moveFailStore struct {
	store.Store
	failing atomic.Bool
}

func (s *moveFailStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		if s.failing.Load() {
			return fn(moveFailTx{tx})
		}
		return fn(tx)
	})
}

type moveFailTx struct{ store.Tx }

func (moveFailTx) MoveNodes(context.Context, []store.NodeMove, time.Time) error { return errUnwritable }

// TestReloadRecordsMoves: a reload records each node that its node
// rules put in another pool, or give other labels, in the node history,
// at once (store.MoveNodes; a relabel as the labels in effect before and
// after), and none that stays; when the store cannot record them, the
// reload fails and changes nothing.
func TestReloadRecordsMoves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allot.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const pools = "pools:\n  - {name: default, policy: fifo}\n  - {name: b, policy: fifo}\n"
	write(pools)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var st *moveFailStore
	h := newHarness(t, withConfig(cfg), func(o *Options) {
		o.ConfigPath = path
		st = &moveFailStore{Store: o.Store}
		o.Store = st
	})
	for _, name := range []string{"n1", "n2", "n3"} {
		if _, err := h.agent(name, 1).Register(h.ctx); err != nil {
			t.Fatal(err)
		}
	}
	pinned := pools + "nodes:\n  - {name: n1, pool: b}\n  - {name: n2, pool: b}\n"
	cases := []struct {
		name, file string
		fail       bool
		pools      string   // n1, n2 and n3's pools afterwards
		moves      []string // the reload's moves in the history
	}{
		{"the history unwritable: nothing changes", pinned, true, "default default default", nil},
		{"two nodes pinned to b", pinned, false, "b b default", []string{"n1 b", "n2 b"}},
		{"the same again: no move", pinned, false, "b b default", nil},
		{"n2 unpinned", pools + "nodes:\n  - {name: n1, pool: b}\n", false, "b default default", []string{"n2 default"}},
		{"n1 unpinned, n3 pinned", pools + "nodes:\n  - {name: n3, pool: b}\n", false, "default default b", []string{"n1 default", "n3 b"}},
		// A change of the labels a rule gives is recorded as the
		// labels in effect until then and those from then on.
		{"n1 labelled", pools + "nodes:\n  - {name: n3, pool: b}\n  - {name: n1, labels: {switch: s2}}\n", false,
			"default default b", []string{"n1 default", "n1 default map[switch:s2]"}},
		{"n1 labelled again", pools + "nodes:\n  - {name: n3, pool: b}\n  - {name: n1, labels: {switch: s3}}\n", false,
			"default default b", []string{"n1 default map[switch:s2]", "n1 default map[switch:s3]"}},
		{"n1 unlabelled and pinned", pools + "nodes:\n  - {name: n3, pool: b}\n  - {name: n1, pool: b}\n", false,
			"b default b", []string{"n1 default map[switch:s3]", "n1 b"}},
	}
	var seq int64
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			write(tc.file)
			st.failing.Store(tc.fail)
			err := h.m.Reload(h.ctx)
			st.failing.Store(false)
			if tc.fail != (err != nil) {
				t.Fatalf("reload: %v, want failure %v", err, tc.fail)
			}
			h.m.lock()
			got := fmt.Sprintf("%s %s %s", h.m.nodes["n1"].pool, h.m.nodes["n2"].pool, h.m.nodes["n3"].pool)
			h.m.unlock()
			if got != tc.pools {
				t.Errorf("pools %s, want %s", got, tc.pools)
			}
			evs, err := h.st.NodeEvents(h.ctx, store.NodeEventFilter{AfterSeq: seq})
			if err != nil {
				t.Fatal(err)
			}
			var moves []string
			for _, e := range evs {
				seq = e.Seq
				if e.From == store.NodeReconfigured && e.To == store.NodeRelabeled && e.Shape != nil && len(e.Shape.GPUs) == 1 {
					moves = append(moves, moveLine(e))
				}
			}
			if !slices.Equal(moves, tc.moves) {
				t.Errorf("moves in the history %q, want %q", moves, tc.moves)
			}
		})
	}
}

// errUnwritable is moveFailTx's failure.
var errUnwritable = errors.New("node history unwritable")

// TestRestartRecordsMoves: a master restarted on a changed
// configuration records each node that it puts in another pool than the
// node history last gave it, as a reload would (restore.go), before any
// agent registers again, and none when the configuration is the same;
// when the store cannot record them, the master refuses to start.
func TestRestartRecordsMoves(t *testing.T) {
	const pools = "pools:\n  - {name: default, policy: fifo}\n  - {name: b, policy: fifo}\n"
	var st *moveFailStore
	h := newHarness(t, withConfig(mustConfig(t, pools)), func(o *Options) {
		st = &moveFailStore{Store: o.Store}
		o.Store = st
	})
	for _, name := range []string{"n1", "n2", "n3"} {
		if _, err := h.agent(name, 1).Register(h.ctx); err != nil {
			t.Fatal(err)
		}
	}
	pinned := pools + "nodes:\n  - {name: n1, pool: b}\n  - {name: n2, pool: b}\n"
	cases := []struct {
		name, file string
		fail       bool
		moves      []string // the restart's moves in the history
	}{
		{"the history unwritable: the master refuses to start", pinned, true, nil},
		{"two nodes pinned to b", pinned, false, []string{"n1 b", "n2 b"}},
		{"the same again: no move", pinned, false, nil},
		{"n2 unpinned, n3 pinned", pools + "nodes:\n  - {name: n1, pool: b}\n  - {name: n3, pool: b}\n", false,
			[]string{"n2 default", "n3 b"}},
		// n1's labels in effect are in the history since its move: a
		// restart that changes them records them as a reload does.
		{"n1 labelled", pools + "nodes:\n  - {name: n1, pool: b, labels: {switch: s2}}\n  - {name: n3, pool: b}\n", false,
			[]string{"n1 b", "n1 b map[switch:s2]"}},
		{"the same again: no relabel", pools + "nodes:\n  - {name: n1, pool: b, labels: {switch: s2}}\n  - {name: n3, pool: b}\n", false, nil},
	}
	var seq int64
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st.failing.Store(tc.fail)
			defer st.failing.Store(false)
			h.opt.Config = mustConfig(t, tc.file)
			if tc.fail {
				_, err := New(h.ctx, h.opt)
				if !errors.Is(err, errUnwritable) {
					t.Fatalf("start: %v, want %v", err, errUnwritable)
				}
				t.Logf("refused: %v", err)
			} else {
				h.start()
			}
			evs, err := h.st.NodeEvents(h.ctx, store.NodeEventFilter{AfterSeq: seq})
			if err != nil {
				t.Fatal(err)
			}
			var moves []string
			for _, e := range evs {
				seq = e.Seq
				if e.From == store.NodeReconfigured && e.Shape != nil {
					moves = append(moves, moveLine(e))
				}
			}
			if !slices.Equal(moves, tc.moves) {
				t.Errorf("moves in the history %q, want %q", moves, tc.moves)
			}
		})
	}
}

// moveLine is a reload's or restart's move or relabel: the node, its pool
// and the labels in effect, if any.
func moveLine(e store.NodeEvent) string {
	s := e.Node + " " + e.Shape.Pool
	if len(e.Shape.Labels) > 0 {
		s += fmt.Sprintf(" %v", e.Shape.Labels)
	}
	return s
}
