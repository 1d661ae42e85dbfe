package master

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// fourTrials is an experiment of four one-GPU trials.
const fourTrials = `{"name": "trials", "entrypoint": "python trial.py", "resources": {"slots": 1},
	"hyperparameters": {"x": {"type": "categorical", "vals": [1, 2, 3, 4]}}}`

// fragment leaves two trials of an experiment on each of two 8-GPU nodes:
// a 6-GPU job fills n1 first, the trials take n1's last two GPUs and two
// of n2's, then the 6-GPU job ends. It returns the agents and the
// experiment's id.
func fragment(t *testing.T, h *harness) (a1, a2 *mastertest.Agent, trials int64) {
	a1, a2 = h.agent("n1", 8), h.agent("n2", 8)
	big := h.submit(jobSpec("big", 6, ""))
	h.step()
	trials = h.submit(fourTrials)
	h.step()
	h.sync(a1, a2, a1, a2)
	a1.Exit(tid(big, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a1)
	if on := nodesOf(t, h, trials); on["n1"] != 2 || on["n2"] != 2 {
		t.Fatalf("trials run on %v, want two on each node", on)
	}
	return a1, a2, trials
}

// nodesOf counts the open attempts of a job per node, from the store.
func nodesOf(t *testing.T, h *harness, job int64) map[string]int {
	t.Helper()
	atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: job, OpenOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]int{}
	for _, a := range atts {
		for _, p := range a.Placement {
			on[p.Node] += len(p.GPUs)
		}
	}
	return on
}

// eventsOf lists a task's transitions as "from→to".
func eventsOf(t *testing.T, h *harness, job int64, index int) []string {
	t.Helper()
	evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: job})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		if e.Index == index {
			out = append(out, e.From+"→"+e.To)
		}
	}
	return out
}

func TestConsolidationMovesTasks(t *testing.T) { onBackends(t, consolidationMoves) }

func consolidationMoves(t *testing.T, h *harness) {
	a1, a2, trials := fragment(t, h)
	whole := h.submit(jobSpec("whole", 8, ""))
	h.step()
	if j := h.job(whole); j.Pending == nil || j.Pending.Reason != "checkpointing" {
		t.Fatalf("8-GPU job pending %+v, want checkpointing while two trials move", j.Pending)
	}
	tasks, err := h.st.Tasks(h.ctx, store.TaskFilter{JobID: trials})
	if err != nil {
		t.Fatal(err)
	}
	var moving []store.Task
	for _, task := range tasks {
		if task.State == store.TaskPreempting {
			moving = append(moving, task)
		}
	}
	if len(moving) != 2 {
		t.Fatalf("tasks %+v, want two preempting with a reserved placement", tasks)
	}
	from := ""
	for _, task := range moving {
		if len(task.Reserved) != 1 || len(task.Reserved[0].GPUs) != 1 || !strings.HasPrefix(task.Reason, "moving to make room for job") {
			t.Fatalf("moving task %+v: want one GPU reserved on the other node", task)
		}
		atts, _ := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: trials, OpenOnly: true})
		for _, a := range atts {
			if a.Index == task.Index {
				from = a.Placement[0].Node
			}
		}
		if task.Reserved[0].Node == from {
			t.Fatalf("task %d reserved on its own node %s", task.Index, from)
		}
	}
	// The agents checkpoint (the fake exits at once), the moved trials
	// restart on their reservations, and the 8-GPU job starts on the node
	// they left.
	h.sync(a1, a2, a1, a2)
	h.step()
	h.sync(a1, a2, a1, a2)
	other := map[string]string{"n1": "n2", "n2": "n1"}[from]
	if on := nodesOf(t, h, trials); on[other] != 4 {
		t.Fatalf("trials run on %v, want all four on %s", on, other)
	}
	if on := nodesOf(t, h, whole); on[from] != 8 {
		t.Fatalf("8-GPU job runs on %v, want %s", on, from)
	}
	for _, task := range moving {
		want := []string{"queued→starting", "starting→running", "running→preempting", "preempting→preempted",
			"preempted→starting", "starting→running"}
		if got := eventsOf(t, h, trials, task.Index); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("task %d went %v, want %v (never queued)", task.Index, got, want)
		}
	}
	if j := h.job(trials); j.State != "running" || j.Running != 4 {
		t.Fatalf("experiment %s with %d running, want all four", j.State, j.Running)
	}
	var want []string
	for _, task := range moving {
		want = append(want, fmt.Sprintf("%d running → preempting: moved", task.Index))
	}
	if got := h.causesOf(trials); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Fatalf("causes %q, want %q", got, want)
	}
	// The moved attempts' views name the job they made room for.
	for _, task := range h.job(trials).TaskList {
		if !slices.ContainsFunc(moving, func(m store.Task) bool { return m.Index == task.Index }) {
			continue
		}
		if p := task.Attempts[0].PreemptedBy; p == nil || p.Job != whole || p.Reason != string(store.CauseMoved) {
			t.Errorf("task %d's moved attempt preempted by %+v, want job %d (moved)", task.Index, p, whole)
		}
	}
}

// TestMoveSurvivesRestart restarts the master while the moved trials
// checkpoint: their reservations are read back and held, and they restart
// there once the checkpoint lands.
func TestMoveSurvivesRestart(t *testing.T) { onBackends(t, moveSurvivesRestart) }

func moveSurvivesRestart(t *testing.T, h *harness) {
	a1, a2, trials := fragment(t, h)
	a1.HoldPreempt, a2.HoldPreempt = true, true
	whole := h.submit(jobSpec("whole", 8, ""))
	h.step()
	h.sync(a1, a2)
	h.m.lock()
	h.m.planner.buildSnapshot(h.m.now())
	before := snapAllocs(h.m)
	h.m.mu.Unlock()
	h.start() // the master restarts; the agents register again
	for _, a := range []*mastertest.Agent{a1, a2} {
		a.Master = h.srv.URL
		if _, err := a.Register(h.ctx); err != nil {
			t.Fatal(err)
		}
	}
	h.m.lock()
	h.m.planner.buildSnapshot(h.m.now())
	after := snapAllocs(h.m)
	h.m.mu.Unlock()
	if before != after {
		t.Fatalf("allocations after the restart:\n%s\nwant as before:\n%s", after, before)
	}
	if !strings.Contains(after, "moving") {
		t.Fatalf("allocations %s: want the moving trials' old placements", after)
	}
	h.step()
	if j := h.job(whole); j.Pending == nil || j.Pending.Reason != "checkpointing" {
		t.Fatalf("8-GPU job pending %+v after the restart, want checkpointing", j.Pending)
	}
	for _, a := range []*mastertest.Agent{a1, a2} {
		for _, c := range a.Commands() {
			if c.Type == "preempt" {
				a.Exit(c.Task, agent.OutcomePreempted, 0)
			}
		}
	}
	h.sync(a1, a2, a1, a2)
	h.step()
	h.sync(a1, a2, a1, a2)
	on := nodesOf(t, h, trials)
	if on["n1"] != 4 && on["n2"] != 4 {
		t.Fatalf("trials run on %v, want all four on one node", on)
	}
	if j := h.job(whole); j.State != "running" {
		t.Fatalf("8-GPU job %s (%+v), want running", j.State, j.Pending)
	}
}

// snapAllocs renders the snapshot's allocations for comparison.
func snapAllocs(m *Master) string {
	var b strings.Builder
	for _, a := range m.planner.snap.Allocs {
		b.WriteString(m.planner.snap.Jobs[a.Job].ID)
		for _, n := range a.Nodes {
			b.WriteString(" " + m.planner.snap.Nodes[n.Node].Name + ":" + strconv.Itoa(int(n.Slots)))
		}
		if a.Preempting {
			b.WriteString(" preempting")
		}
		if a.Moving {
			b.WriteString(" moving")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestElasticJobGrows(t *testing.T) { onBackends(t, elasticGrows) }

func elasticGrows(t *testing.T, h *harness) {
	a := h.agent("n1", 8)
	other := h.submit(jobSpec("other", 6, ""))
	h.step()
	h.sync(a, a)
	elastic := h.submit(jobSpec("elastic", 8, `, "min_slots": 2, "preemptible": true`))
	h.step()
	h.sync(a, a)
	if on := nodesOf(t, h, elastic); on["n1"] != 2 {
		t.Fatalf("elastic job holds %v, want 2 GPUs of n1", on)
	}
	a.Exit(tid(other, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(a) // the other job ends
	h.step()  // and the elastic task doubles in place
	tasks, _ := h.st.Tasks(h.ctx, store.TaskFilter{JobID: elastic})
	if task := tasks[0]; task.State != store.TaskPreempting || len(task.Reserved) != 1 || len(task.Reserved[0].GPUs) != 4 ||
		task.Reason != resizeReason+"4 slots" {
		t.Fatalf("elastic task %+v, want preempting with 4 GPUs reserved", task)
	}
	if got, want := h.causesOf(elastic), "0 running → preempting: resized"; strings.Join(got, ", ") != want {
		t.Fatalf("causes %q, want %q", got, want)
	}
	// Growing in place keeps its two GPUs, so nothing of the old placement
	// drains (lifecycle.Kept for a resize), as in the simulator.
	h.m.mu.Lock()
	h.m.planner.buildSnapshot(h.m.now())
	allocs := snapAllocs(h.m)
	h.m.mu.Unlock()
	if want := strconv.FormatInt(elastic, 10) + " n1:4\n"; !strings.Contains(allocs, want) || strings.Contains(allocs, "moving") {
		t.Fatalf("allocations while resizing:\n%s\nwant the elastic job on n1:4 and nothing draining", allocs)
	}
	for range 4 {
		h.sync(a)
		h.step()
	}
	h.sync(a)
	var sizes []int
	for _, s := range a.Started() {
		if s.JobID == strconv.FormatInt(elastic, 10) {
			sizes = append(sizes, len(s.GPUs))
		}
	}
	if want := []int{2, 4, 8}; len(sizes) != 3 || sizes[0] != 2 || sizes[1] != 4 || sizes[2] != 8 {
		t.Fatalf("elastic task started with %v GPUs, want %v", sizes, want)
	}
	tasks, _ = h.st.Tasks(h.ctx, store.TaskFilter{JobID: elastic})
	if task := tasks[0]; task.State != store.TaskRunning || task.Attempt != 3 || task.Restarts != 2 || task.Reserved != nil {
		t.Fatalf("elastic task %+v, want running its third attempt", task)
	}
	// Each resized attempt says so, not "checkpointed to move".
	var j api.Job
	if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(elastic, 10), nil, &j); code != 200 || len(j.TaskList) != 1 {
		t.Fatalf("job %d: status %d, %+v", elastic, code, j)
	}
	for _, at := range j.TaskList[0].Attempts[:2] {
		if at.Reason != "checkpointed to resize" {
			t.Fatalf("attempt %d ended %q, want checkpointed to resize", at.Number, at.Reason)
		}
	}
	// Resizes are not preemptions: they do not count against a budget.
	h.m.lock()
	defer h.m.mu.Unlock()
	if n := h.m.planner.preemptedCount("default", h.clock.Now()); n != 0 {
		t.Fatalf("%d preemptions counted for resizes, want 0", n)
	}
}

// TestReservedKind: a restarted master tells a resize in flight from a
// move by the reason its transition to preempting stored (replaceOp), so
// that its lifecycle.Replacement drains what the one it applied drained.
func TestReservedKind(t *testing.T) {
	for _, tt := range []struct {
		name, reason string
		want         lifecycle.Replace
	}{
		{"a consolidation move", "moving to make room for job 16", lifecycle.Move},
		{"a move for no job", "", lifecycle.Move},
		{"growth", resizeReason + "4 slots", lifecycle.Resize},
		{"a shrink for a job", resizeReason + "1 slot for job 16 (quota reclaim)", lifecycle.Resize},
		{"a reason that only mentions a resize", "moved: " + resizeReason + "2 slots", lifecycle.Move},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := reservedKind(tt.reason); got != tt.want {
				t.Errorf("reservedKind(%q) = %v, want %v", tt.reason, got, tt.want)
			}
		})
	}
}
