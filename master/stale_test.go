package master

import (
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// onceUnlocked sets passUnlocked to call fn the first time a pass is
// between its Schedule and its taking mu again, with the plan, and resets
// it when the test ends.
func onceUnlocked(t *testing.T, fn func(plan *sched.Plan)) {
	t.Helper()
	done := false
	passUnlocked = func(plan *sched.Plan) {
		if !done {
			done = true
			fn(plan)
		}
	}
	t.Cleanup(func() { passUnlocked = nil })
}

// TestHandlersDoNotWaitForSchedule: a pass holds mu while it builds its
// snapshot and while it applies its plan, not while the core schedules.
// The pass is held between its Schedule and its taking mu again; a
// handler that takes mu completes meanwhile (were mu held, it would wait
// for ever and the test would time out), and the pass then applies its
// plan against what the handler changed.
func TestHandlersDoNotWaitForSchedule(t *testing.T) {
	tests := []struct {
		name    string
		handler func(h *harness, a *mastertest.Agent, running, queued int64)
		// started is whether the queued job starts once the pass goes on.
		started bool
	}{
		{"kill the queued job", func(h *harness, _ *mastertest.Agent, _, queued int64) {
			if code := h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(queued, 10)+"/kill", nil, nil); code != http.StatusOK {
				t.Errorf("kill: %d", code)
			}
		}, false},
		{"agent sync with an exit", func(h *harness, a *mastertest.Agent, running, _ int64) {
			if !a.Exit(tid(running, 0, 1), agent.OutcomeCompleted, 0) {
				t.Error("the running job is not on the agent")
			}
			h.sync(a)
		}, true},
		{"priority change", func(h *harness, _ *mastertest.Agent, _, queued int64) {
			if code := h.do("PATCH", "/api/v1/jobs/"+strconv.FormatInt(queued, 10), `{"priority": 20}`, nil); code != http.StatusOK {
				t.Errorf("patch: %d", code)
			}
		}, false}, // a changed job is planned again by the next pass
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 4)
			running := h.submit(jobSpec("running", 2, ""))
			h.step()
			h.sync(a, a)
			queued := h.submit(jobSpec("queued", 2, ""))
			entered, release := make(chan struct{}), make(chan struct{})
			onceUnlocked(t, func(plan *sched.Plan) {
				if len(plan.Starts) != 1 {
					t.Errorf("plan starts %d jobs, want the queued one", len(plan.Starts))
				}
				close(entered)
				<-release
			})
			done := make(chan struct{})
			go func() { h.step(); close(done) }()
			<-entered
			tt.handler(h, a, running, queued)
			close(release)
			<-done
			if got := h.taskState(queued, 0) == store.TaskStarting; got != tt.started {
				t.Errorf("queued job started: %v, want %v (%s)", got, tt.started, h.taskState(queued, 0))
			}
		})
	}
}

// staleConfig is a configuration with two pools and, when pinned, n1
// pinned to the second.
func staleConfig(pinned bool) string {
	s := "pools:\n  - name: default\n    policy: priority\n    preemption: true\n  - name: other\n    policy: fifo\n"
	if pinned {
		s += "nodes:\n  - name: n1\n    pool: other\n"
	}
	return s
}

// staleCase is a change made while the core plans, and whether the plan
// is still applied after it.
type staleCase struct {
	name string
	// victim sets up a running preemptible job and a higher-priority
	// one that preempts it; else one queued job that starts.
	victim bool
	change func(t *testing.T, h *harness, a *mastertest.Agent, path string, id int64)
	// applied is whether the plan's start (or preemption) is applied.
	applied bool
	// waits says the change is a node event, which waits for the
	// settling (betweenSettlings): made from another goroutine, it is
	// made once the pass is over.
	waits bool
}

// staleCases are TestStalePlanRechecked's cases.
func staleCases() []staleCase {
	return []staleCase{
		{"nothing changed", false, func(*testing.T, *harness, *mastertest.Agent, string, int64) {}, true, false},
		{"job killed", false, func(t *testing.T, h *harness, _ *mastertest.Agent, _ string, id int64) {
			h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/kill", nil, nil)
		}, false, false},
		// Node events wait for the settling: the plan is applied, and
		// the node changes after it (a deletion is refused then, as the
		// node runs the task the plan started).
		{"node drained", false, func(t *testing.T, h *harness, _ *mastertest.Agent, _ string, _ int64) {
			if code := h.do("POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: "x"}, nil); code != http.StatusOK {
				t.Errorf("drain: %d", code)
			}
		}, true, true},
		{"node deleted", false, func(t *testing.T, h *harness, _ *mastertest.Agent, _ string, _ int64) {
			if code := h.do("DELETE", "/api/v1/nodes/n1", nil, nil); code != http.StatusConflict {
				t.Errorf("delete: %d, want %d once the pass started a task there", code, http.StatusConflict)
			}
		}, true, true},
		{"node registered again in another pool", false, func(t *testing.T, h *harness, a *mastertest.Agent, _ string, _ int64) {
			a.Pool = "other"
			if _, err := a.Register(h.ctx); err != nil {
				t.Error(err)
			}
		}, true, true},
		// A reload waits for the settling too: the plan is applied
		// under the configuration it was made with, and the reload's
		// move of n1 lands after it.
		{"configuration reloaded", false, func(t *testing.T, h *harness, _ *mastertest.Agent, path string, _ int64) {
			if err := os.WriteFile(path, []byte(staleConfig(true)), 0o644); err != nil {
				t.Error(err)
			}
			if code := h.do("POST", "/api/v1/config/reload", nil, nil); code != http.StatusOK {
				t.Errorf("reload: %d", code)
			}
		}, true, true},
		// The guard: a plan built under another configuration
		// generation is not applied.
		{"configuration generation changed", false, func(t *testing.T, h *harness, _ *mastertest.Agent, _ string, _ int64) {
			h.m.lock()
			h.m.cfgGen++
			h.m.unlock()
		}, false, false},
		{"victim ended", true, func(t *testing.T, h *harness, a *mastertest.Agent, _ string, id int64) {
			if !a.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0) {
				t.Error("the victim is not on the agent")
			}
			h.sync(a)
		}, false, false},
		{"victim's priority raised", true, func(t *testing.T, h *harness, _ *mastertest.Agent, _ string, id int64) {
			if code := h.do("PATCH", "/api/v1/jobs/"+strconv.FormatInt(id, 10), `{"priority": 1}`, nil); code != http.StatusOK {
				t.Errorf("patch: %d", code)
			}
		}, false, false},
	}
}

// TestStalePlanRechecked: the mirror changes while the core schedules, as
// a handler may change it then; the applier skips what no longer holds,
// in the mirror as in the store. Each case but the first and the node
// events fails without its re-check (stale.go); a node event or a reload
// waits for the settling, and each of those fails if it does not.
func TestStalePlanRechecked(t *testing.T) {
	for _, tt := range staleCases() {
		t.Run(tt.name, func(t *testing.T) {
			withFile, path := withConfigFile(t, staleConfig(false))
			h := newHarness(t, withFile)
			a := h.agent("n1", 2)
			id := h.submit(jobSpec("job", 2, `, "priority": 70`))
			if tt.victim {
				h.step()
				h.sync(a, a)
				h.submit(jobSpec("high", 2, `, "priority": 10`))
			}
			var made chan struct{}
			onceUnlocked(t, func(plan *sched.Plan) {
				if n := len(plan.Starts) + len(plan.Preemptions); n != 1 {
					t.Errorf("plan has %d starts and preemptions, want 1", n)
				}
				if !tt.waits {
					tt.change(t, h, a, path, id)
					return
				}
				made = inAnother(t, func() { tt.change(t, h, a, path, id) })
			})
			h.step()
			if made != nil {
				<-made
			}
			want, got := store.TaskStarting, h.taskState(id, 0)
			if tt.victim {
				want = store.TaskPreempting
			}
			if (got == want) != tt.applied {
				t.Errorf("task %s; want the plan applied: %v", got, tt.applied)
			}
			a.Sync(h.ctx, 0) // refused once the node is deleted
			if started := len(a.Started()) > 0; !tt.victim && started != tt.applied {
				t.Errorf("agent started %d tasks; want the plan applied: %v", len(a.Started()), tt.applied)
			}
			h.checkConsistent(t)
		})
	}
}

// inAnother runs a node event's handler fn from another goroutine, as a
// request that comes while a pass is held, and returns once it is done
// or waits for the settling (betweenSettlings); the returned channel is
// closed once it is done.
func inAnother(t *testing.T, fn func()) chan struct{} {
	done, waits := make(chan struct{}), make(chan struct{})
	var once sync.Once
	nodeEventWaits = func() { once.Do(func() { close(waits) }) }
	t.Cleanup(func() {
		<-done
		nodeEventWaits = nil
	})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-waits:
	}
	return done
}

// TestGoneJobKeepsNoReservation: a job that leaves the mirror while the
// core gives it a reservation gets none stored.
func TestGoneJobKeepsNoReservation(t *testing.T) {
	h, _, waiting := reservedBehind(t)
	onceUnlocked(t, func(plan *sched.Plan) {
		if len(plan.Pending) != 1 || plan.Pending[0].At <= 0 {
			t.Errorf("plan pending %+v, want the waiting job reserved", plan.Pending)
		}
		h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(waiting, 10)+"/kill", nil, nil)
	})
	h.step()
	rs, err := h.st.Reservations(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.JobID == waiting {
			t.Fatalf("reservation %+v stored for a job killed while the core planned", r)
		}
	}
}

// checkConsistent checks the mirror against itself and the store: no GPU
// is held by two attempts (or reservations), every held GPU is the
// holder's, and every live job and task is as the store has it, and no
// task the store has active is missing from the mirror.
func (h *harness) checkConsistent(t *testing.T) {
	t.Helper()
	h.m.lock()
	defer h.m.unlock()
	type gpu struct {
		node  string
		index int
	}
	holder := map[gpu]*mtask{}
	hold := func(tk *mtask, parts []*mpart) {
		for _, p := range parts {
			for _, g := range p.gpus {
				k := gpu{p.node, g.Index}
				if o := holder[k]; o != nil && o != tk {
					t.Errorf("GPU %s/%d held by tasks %s and %s", p.node, g.Index, o.id(), tk.id())
				}
				holder[k] = tk
			}
		}
	}
	for _, j := range h.m.jobs {
		for _, tk := range j.tasks {
			if tk.att != nil {
				hold(tk, tk.att.parts)
			}
			hold(tk, tk.next)
		}
	}
	for name, n := range h.m.nodes {
		for idx, tk := range n.used {
			if holder[gpu{name, idx}] != tk {
				t.Errorf("node %s GPU %d marked used by %s, which does not hold it", name, idx, tk.id())
			}
		}
	}
	for k, tk := range holder {
		if n := h.m.nodes[k.node]; n == nil || n.used[k.index] != tk {
			t.Errorf("task %s holds %s/%d, which its node does not mark", tk.id(), k.node, k.index)
		}
	}
	jobs, err := h.st.Jobs(h.ctx, store.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sj := range jobs {
		j := h.m.jobs[sj.ID]
		tasks, err := h.st.Tasks(h.ctx, store.TaskFilter{JobID: sj.ID})
		if err != nil {
			t.Fatal(err)
		}
		if j == nil {
			for _, st := range tasks {
				if !st.State.Terminal() {
					t.Errorf("task %d/%d is %s in the store, and its job is not in the mirror", sj.ID, st.Index, st.State)
				}
			}
			continue
		}
		if j.rec.State != sj.State {
			t.Errorf("job %d: %s in the mirror, %s in the store", sj.ID, j.rec.State, sj.State)
		}
		for i, st := range tasks {
			if mt := j.tasks[i].rec; mt.State != st.State || mt.Attempt != st.Attempt {
				t.Errorf("task %d/%d: %s attempt %d in the mirror, %s attempt %d in the store",
					sj.ID, i, mt.State, mt.Attempt, st.State, st.Attempt)
			}
		}
	}
}

// try sends a request as the admin and returns its status, or 0 when it
// could not be sent: for goroutines other than the test's, which may not
// fail the test from a transport error.
func (h *harness) try(method, path, body string) int {
	req, err := http.NewRequestWithContext(h.ctx, method, h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+h.admin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// raceWorkers are TestPassesRaceHandlers's handlers, each called with
// its round: they submit, kill, change priorities, explain, drain and
// resume n3, reload the configuration (n1 pinned to the other pool every
// other time), run the tick's pass, and end the agents' tasks and sync.
func raceWorkers(h *harness, path string, agents []*mastertest.Agent) []func(i int) {
	var reloadMu sync.Mutex // the file and its reload go together
	workers := []func(i int){
		func(i int) { // submit
			h.try("POST", "/api/v1/jobs", jobSpec("w", 1+i%4, `, "priority": `+strconv.Itoa(5+(i*37)%90)))
		},
		func(i int) { // kill
			h.try("POST", "/api/v1/jobs/"+strconv.Itoa(1+(i*7)%30)+"/kill", "")
		},
		func(i int) { // change priorities
			h.try("PATCH", "/api/v1/jobs/"+strconv.Itoa(1+(i*5)%30), `{"priority": `+strconv.Itoa(1+(i*13)%99)+`}`)
		},
		func(i int) { // explain, which reads the last snapshot
			h.try("GET", "/api/v1/jobs/"+strconv.Itoa(1+i%30)+"/explain", "")
		},
		func(i int) { // drain and resume
			h.try("POST", "/api/v1/nodes/n3/"+[]string{"drain", "resume"}[i%2], `{"reason": "x"}`)
		},
		func(i int) { // reload, n1 pinned to the other pool every other time
			reloadMu.Lock()
			defer reloadMu.Unlock()
			if os.WriteFile(path, []byte(staleConfig(i%2 == 0)), 0o644) == nil {
				h.try("POST", "/api/v1/config/reload", "")
			}
		},
		func(int) { h.m.Tick(h.ctx) }, // a second pass loop, with the forecast
	}
	for _, a := range agents {
		workers = append(workers, func(i int) { // the agent's tasks end, in turn
			if run := a.Running(); len(run) > 0 {
				outcome := []agent.Outcome{agent.OutcomeCompleted, agent.OutcomeFailed}[i%2]
				a.Exit(run[i%len(run)], outcome, i%2)
			}
			a.Sync(h.ctx, 0)
		})
	}
	return workers
}

// TestPassesRaceHandlers runs passes (two goroutines, by Step and Tick)
// while others submit, kill, change priorities, explain, drain and resume
// nodes, sync agents whose tasks end, and reload the configuration, each
// a fixed number of times; run with -race. Afterwards no GPU is held
// twice, by the mirror or on an agent, and the mirror is the store's.
func TestPassesRaceHandlers(t *testing.T) {
	const rounds = 40
	withFile, path := withConfigFile(t, staleConfig(false))
	h := newHarness(t, withFile)
	agents := []*mastertest.Agent{h.agent("n1", 4), h.agent("n2", 4), h.agent("n3", 2)}
	for i := range 6 {
		h.submit(jobSpec("seed", 1+i%3, `, "priority": `+strconv.Itoa(10+i*10)))
	}
	// Widen each pass's window without mu, so that the handlers land in it.
	passUnlocked = func(*sched.Plan) { runtime.Gosched() }
	t.Cleanup(func() { passUnlocked = nil })
	var wg sync.WaitGroup
	workers := raceWorkers(h, path, agents)
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				w(i)
			}
		}()
	}
	for range rounds {
		h.step()
	}
	wg.Wait()
	for range 3 { // let the last commands and reports through
		h.step()
		for _, a := range agents {
			a.Sync(h.ctx, 0)
		}
	}
	h.checkConsistent(t)
	for _, a := range agents {
		checkAgentGPUs(t, a)
	}
}

// checkAgentGPUs checks that no GPU of the agent runs two tasks.
func checkAgentGPUs(t *testing.T, a *mastertest.Agent) {
	t.Helper()
	gpus := map[agent.TaskID][]int{}
	for _, s := range a.Started() {
		gpus[s.ID()] = s.GPUs
	}
	by := map[int]agent.TaskID{}
	for _, id := range a.Running() {
		for _, g := range gpus[id] {
			if o, ok := by[g]; ok {
				t.Errorf("agent %s: GPU %d runs %v and %v", a.Name, g, o, id)
			}
			by[g] = id
		}
	}
}
