package master

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/store"
)

// TestReadersUseCauses: the what-if export (historyEvents), the decision
// log and the preemption budgets tell moves, resizes, time-limit kills,
// failed starts and moves that became preemptions apart by the causes
// the event log keeps (store.Cause), not by the reasons users see. An
// event log written with the causes reads the same whatever its reasons
// say; one written with the reasons of these transitions and no causes
// reads as plain preemptions, kills and failures.
func TestReadersUseCauses(t *testing.T) {
	const facts = "" +
		"moved: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"moved: 10 move task=0 attempt=1 nodes=n2:1\n" +
		"resized: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"resized: 10 resize task=0 attempt=1 nodes=n2:1\n" +
		"preempted: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"preempted: 10 preempt task=0 attempt=1 nodes=n1:1\n" +
		"preempted: 12 end task=0 attempt=1 how=preempted\n" +
		"limited: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"limited: 12 end task=0 attempt=1 how=timelimit\n" +
		"unplaced: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"unplaced: 10 preempt task=0 attempt=1 nodes=n1:1\n" +
		"unplaced: 12 end task=0 attempt=1 how=preempted\n" +
		"failed start: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"failed start: 2 end task=0 attempt=1 how=failed\n" +
		"moved [moved resized unplaced]; start failed [failed start]; budget 3\n"
	const reasonsOnly = "" +
		"moved: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"moved: 10 preempt task=0 attempt=1 nodes=n1:1\n" +
		"moved: 12 end task=0 attempt=1 how=preempted\n" +
		"moved: 12 start task=0 attempt=2 nodes=n2:1\n" +
		"resized: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"resized: 10 preempt task=0 attempt=1 nodes=n1:1\n" +
		"resized: 12 end task=0 attempt=1 how=preempted\n" +
		"resized: 12 start task=0 attempt=2 nodes=n2:1\n" +
		"preempted: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"preempted: 10 preempt task=0 attempt=1 nodes=n1:1\n" +
		"preempted: 12 end task=0 attempt=1 how=preempted\n" +
		"limited: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"limited: 12 end task=0 attempt=1 how=killed\n" +
		"unplaced: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"unplaced: 10 preempt task=0 attempt=1 nodes=n1:1\n" +
		"unplaced: 12 end task=0 attempt=1 how=preempted\n" +
		"failed start: 0 start task=0 attempt=1 nodes=n1:1\n" +
		"failed start: 2 end task=0 attempt=1 how=failed\n" +
		"moved []; start failed []; budget 4\n"
	for _, c := range []struct {
		name    string
		reasons bool // the reasons the master writes, else "r"
		causes  bool
		want    string
	}{
		{"causes and neutral reasons", false, true, facts},
		{"causes and reasons", true, true, facts},
		{"reasons without causes", true, false, reasonsOnly},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			t0 := h.clock.Now()
			names := writeCauseLog(t, h, t0, c.reasons, c.causes)
			h.clock.Advance(time.Minute)
			if got := readCauseLog(t, h, t0, names); got != c.want {
				t.Errorf("read:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// causeCases are writeCauseLog's cases, in its order.
var causeCases = []string{"moved", "resized", "preempted", "limited", "unplaced", "failed start"}

// causeStep is one transition of a task of writeCauseLog, at second at.
type causeStep struct {
	at       int
	from, to store.TaskState
	reason   string
	cause    store.Cause
	node     string // opens an attempt there
	end      store.AttemptState
}

// writeCauseLog writes a job of one task for each case, its transitions
// with their reasons or "r", their causes or none, and returns the jobs'
// names by export name.
func writeCauseLog(t *testing.T, h *harness, t0 time.Time, reasons, causes bool) map[string]string {
	t.Helper()
	run := []causeStep{{0, store.TaskQueued, store.TaskStarting, "scheduled", "", "n1", ""},
		{1, store.TaskStarting, store.TaskRunning, "every part runs", "", "", ""}}
	replaced := func(reason string, cause store.Cause) []causeStep {
		return append(slices.Clone(run), causeStep{10, store.TaskRunning, store.TaskPreempting, reason, cause, "", ""},
			causeStep{12, store.TaskPreempting, store.TaskPreempted, "checkpointed to move", "", "", store.AttemptPreempted},
			causeStep{12, store.TaskPreempted, store.TaskStarting, "restarted on its new placement", "", "n2", ""})
	}
	cases := []struct {
		name  string
		steps []causeStep
	}{
		{"moved", replaced("moving to make room for job 9", store.CauseMoved)},
		{"resized", replaced(resizeReason+"1 slot", store.CauseResized)},
		{"preempted", append(slices.Clone(run), causeStep{10, store.TaskRunning, store.TaskPreempting, "preempted for job 9", "", "", ""},
			causeStep{12, store.TaskPreempting, store.TaskPreempted, "stopped for a checkpoint after preemption", "", "", store.AttemptPreempted},
			causeStep{12, store.TaskPreempted, store.TaskQueued, "requeued after preemption", "", "", ""})},
		{"limited", append(slices.Clone(run), causeStep{11, store.TaskRunning, store.TaskKilling, "time limit of 10s reached", store.CauseTimeLimit, "", ""},
			causeStep{12, store.TaskKilling, store.TaskKilled, "time limit of 10s reached", store.CauseTimeLimit, "", store.AttemptKilled})},
		{"unplaced", append(slices.Clone(run), causeStep{10, store.TaskRunning, store.TaskPreempting, "moving to make room for job 9", store.CauseMoved, "", ""},
			causeStep{12, store.TaskPreempting, store.TaskPreempted, "stopped for a checkpoint after preemption", "", "", store.AttemptPreempted},
			causeStep{12, store.TaskPreempted, store.TaskQueued, unplacedReason, store.CauseUnplaced, "", ""})},
		{"failed start", []causeStep{run[0],
			{2, store.TaskStarting, store.TaskFailed, "could not start on node n1: no such directory", store.CauseStartFailed, "", store.AttemptFailed}}},
	}
	names := map[string]string{}
	for _, cs := range cases {
		job, err := h.st.CreateJob(h.ctx, store.Job{Name: "x", Kind: store.KindCommand, Project: "p", User: "u", Pool: "default",
			Priority: 50, Weight: 1, Slots: 1, Entrypoint: "true", SubmittedAt: t0}, make([]store.Task, 1))
		if err != nil {
			t.Fatal(err)
		}
		names[exportName(job)] = cs.name
		for _, s := range cs.steps {
			tr := store.TaskTransition{JobID: job.ID, From: s.from, To: s.to, At: t0.Add(time.Duration(s.at) * time.Second),
				Reason: "r"}
			if reasons {
				tr.Reason = s.reason
			}
			if causes {
				tr.Cause = s.cause
			}
			if s.node != "" {
				tr.Placement = []store.Placement{{Node: s.node, GPUs: []store.GPURef{{Index: 0, UUID: "GPU-" + s.node}}}}
			}
			if s.end != "" {
				tr.End = &store.AttemptEnd{State: s.end}
			}
			if _, err := h.st.TransitionTask(h.ctx, tr); err != nil {
				t.Fatalf("%s: %s → %s: %v", cs.name, s.from, s.to, err)
			}
		}
	}
	return names
}

// readCauseLog is what the readers make of the log: the decision log
// (each line led by its case's name), the cases with an attempt moved or
// resized and with a failed start (historyEvents), and the preemptions
// and moves the budgets count.
func readCauseLog(t *testing.T, h *harness, t0 time.Time, names map[string]string) string {
	t.Helper()
	ds, err := h.m.history.decisions(h.ctx, t0, h.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.SplitAfter(decisionlog.Format(ds), "\n") {
		if f := strings.Fields(l); len(f) > 2 {
			lines = append(lines, names[f[2]]+": "+strings.Replace(l, " "+f[2], "", 1))
		}
	}
	// By case, in the order written, each case's lines in the log's.
	slices.SortStableFunc(lines, func(a, b string) int {
		return slices.Index(causeCases, strings.Split(a, ":")[0]) - slices.Index(causeCases, strings.Split(b, ":")[0])
	})
	var b strings.Builder
	b.WriteString(strings.Join(lines, ""))
	hist, err := h.m.history.events(h.ctx, t0)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := h.st.Jobs(h.ctx, store.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	caseOf := map[int64]string{}
	for _, j := range jobs {
		caseOf[j.ID] = names[exportName(j)]
	}
	which := func(m map[attemptKey]bool) []string {
		var out []string
		for k, v := range m {
			if v {
				out = append(out, caseOf[k.job])
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	h.m.lock()
	h.m.planner.preempted = newPreemptBudget()
	err = h.m.planner.restoreBudgets(h.ctx)
	budget := h.m.planner.preemptedCount("p", h.clock.Now())
	h.m.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "moved %v; start failed %v; budget %d\n", which(hist.moved), which(hist.startFailed), budget)
	return b.String()
}

// causesOf are job id's task transitions that have a cause, as
// "task from → to: cause", in the event log's order.
func (h *harness) causesOf(id int64) []string {
	h.t.Helper()
	evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: id})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		if e.Cause != "" {
			out = append(out, fmt.Sprintf("%d %s → %s: %s", e.Index, e.From, e.To, e.Cause))
		}
	}
	return out
}
