package master

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// lockedBuffer is a log sink the master's goroutines may write to.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// take returns the lines written since the last take.
func (b *lockedBuffer) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := strings.TrimSpace(b.buf.String())
	b.buf.Reset()
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestReshapedNode: an agent that registers again with another inventory
// while a task runs there (reshape.go). The task runs on, on its GPUs,
// and every GPU it holds counts against the node's new ones: a node with
// fewer GPUs than its task holds is full, not over-committed, and takes
// work again, of its new shape, once the task ends. The registration is
// logged as a warning and kept in the node history with the new shape.
func TestReshapedNode(t *testing.T) {
	cfg, err := config.Parse("pools.yaml", []byte(`default_pool: gpu
pools:
  - {name: gpu, policy: fifo}
  - {name: other, policy: fifo}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		reshape func(a *mastertest.Agent)
		// waits is submitted before the reshape, then, once the big job
		// ended, fits is: waits must still wait, fits start.
		waits, fits string
		log         string // in the warning
		slots, used int    // GET /nodes after the reshape
	}{
		{"fewer GPUs than the task holds", func(a *mastertest.Agent) { a.GPUs = 2 },
			jobSpec("three", 3, ""), jobSpec("two", 2, ""), "gpus_was=4 gpus=2", 2, 4},
		{"another GPU type", func(a *mastertest.Agent) { a.GPUType = "a100" },
			jobSpec("h100", 1, `, "gpu": "h100"`), jobSpec("a100", 1, `, "gpu": "a100"`), "type_was=h100 type=a100", 4, 4},
		{"another pool", func(a *mastertest.Agent) { a.Pool = "other" },
			jobSpec("gpu", 1, ""), `{"name": "other", "entrypoint": "e", "pool": "other", "resources": {"slots": 1}}`, "pool_was=gpu pool=other", 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &lockedBuffer{}
			h := newHarness(t, withConfig(cfg), func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
			a := h.agent("n1", 4)
			big := h.submit(jobSpec("big", 4, ""))
			h.step()
			h.sync(a)
			waits := h.submit(tc.waits)
			tc.reshape(a)
			if _, err := a.Register(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.step()
			h.sync(a)
			if got := h.taskState(big, 0); got != store.TaskRunning {
				t.Fatalf("the task on the reshaped node is %s, want running on", got)
			}
			if n := h.node("n1"); n.Slots != tc.slots || n.Used != tc.used {
				t.Errorf("reshaped node lists %d slots, %d used; want %d, %d", n.Slots, n.Used, tc.slots, tc.used)
			}
			if s, _ := h.snapshot(); len(s.Nodes) != 1 || s.Nodes[0].Slots != 4 {
				t.Errorf("the scheduler's node %+v, want 4 slots: all the task holds, no fewer", s.Nodes)
			}
			if line := logs.String(); !strings.Contains(line, "level=WARN msg=\"node registered again with another inventory") ||
				!strings.Contains(line, tc.log) {
				t.Errorf("log, want a warning with %q:\n%s", tc.log, line)
			}
			fits := h.submit(tc.fits)
			h.step()
			if got := h.taskState(fits, 0); got != store.TaskQueued {
				t.Fatalf("a job started on the node its task fills: %s", got)
			}
			a.Exit(tid(big, 0, 1), agent.OutcomeCompleted, 0)
			h.sync(a)
			h.step()
			if got := h.taskState(waits, 0); got != store.TaskQueued {
				t.Errorf("a job the node no longer fits is %s, want queued", got)
			}
			if got := h.taskState(fits, 0); got != store.TaskStarting {
				t.Errorf("a job of the node's new shape is %s, want starting", got)
			}
			evs, err := h.st.NodeEvents(h.ctx, store.NodeEventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			var shaped []*store.Node
			for _, e := range evs {
				if e.To == store.NodeReshaped {
					shaped = append(shaped, e.Shape)
				}
			}
			if len(shaped) != 1 || shaped[0] == nil || len(shaped[0].GPUs) != a.GPUs {
				t.Errorf("the node history's reshapes %+v, want one with the new %d GPUs", shaped, a.GPUs)
			}
		})
	}
}
