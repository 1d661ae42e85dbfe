package master

import (
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// TestFenceInReplies: the registration and sync replies tell the agent
// the agent timeout, lost_node_grace and the pool's checkpoint grace, and
// which of its attempts the master would hold through a loss: the
// non-preemptible one that runs, not the preemptible one; fence: false,
// also by a reload, says nothing, as an older master.
func TestFenceInReplies(t *testing.T) {
	withFile, path := withConfigFile(t, "agent_timeout: 40s\nlost_node_grace: 2m\n")
	h := newHarness(t, withFile)
	a := h.agent("n1", 2)
	held := h.submit(jobSpec("train", 1, `, "preemptible": false`))
	loose := h.submit(jobSpec("sweep", 1, `, "preemptible": true`))
	h.step()
	h.sync(a)
	h.sync(a) // the running reports
	reply, err := a.Sync(h.ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := api.Fence{AgentTimeoutMS: 40_000, LostNodeGraceMS: 120_000, GraceS: int64(DefaultGrace / time.Second),
		Held: []agent.TaskID{tid(held, 0, 1)}}
	if f := reply.Fence; f == nil || f.AgentTimeoutMS != want.AgentTimeoutMS || f.LostNodeGraceMS != want.LostNodeGraceMS ||
		f.GraceS != want.GraceS || !slices.Equal(f.Held, want.Held) {
		t.Fatalf("sync reply's fence %+v, want %+v (%s requeued at a loss)", f, want, tid(loose, 0, 1))
	}
	reg, err := a.Rejoin(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f := reg.Fence; f == nil || !slices.Equal(f.Held, want.Held) {
		t.Fatalf("registration reply's fence %+v, want %+v", f, want)
	}

	writeConfig(t, path, "agent_timeout: 40s\nfence: false\n")
	if err := h.m.Reload(h.ctx); err != nil {
		t.Fatal(err)
	}
	if reply, err := a.Sync(h.ctx, 0); err != nil || reply.Fence != nil {
		t.Fatalf("sync after fence: false: fence %+v (err %v), want none", reply.Fence, err)
	}
	if reg, err := a.Rejoin(h.ctx); err != nil || reg.Fence != nil {
		t.Fatalf("registration after fence: false: fence %+v (err %v), want none", reg.Fence, err)
	}
}

// TestFencedAttemptReported: the agent's fence stopped an attempt and
// reports it preempted when it reaches the master again. A master that
// had not lost the node (the fence's margin) requeues the task from its
// checkpoint, as after a preemption, not failed nor completed; one that
// lost the node meanwhile ended the attempt already and ignores the
// report, whether it requeued the task (preemptible) or failed it after
// lost_node_grace (not preemptible).
func TestFencedAttemptReported(t *testing.T) {
	tests := []struct {
		name        string
		extra       string
		lostFor     time.Duration // 0: the node was not lost
		wantTask    store.TaskState
		wantAttempt store.AttemptState
	}{
		{"not lost: requeued from its checkpoint", `, "preemptible": true`, 0, store.TaskQueued, store.AttemptPreempted},
		{"not lost, not preemptible: requeued all the same", `, "preemptible": false`, 0, store.TaskQueued, store.AttemptPreempted},
		{"lost: the report is ignored", `, "preemptible": true`, time.Second, store.TaskQueued, store.AttemptLost},
		{"held and failed after the grace: the report is ignored", `, "preemptible": false`, 6 * time.Minute, store.TaskFailed, store.AttemptLost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 1)
			id := h.submit(jobSpec("train", 1, tt.extra))
			h.step()
			h.sync(a)
			h.sync(a)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("task %s, want running", got)
			}
			if tt.lostFor > 0 {
				h.clock.Advance(DefaultAgentTimeout + 2*time.Second)
				h.m.Tick(h.ctx)
				h.clock.Advance(tt.lostFor)
				h.m.Tick(h.ctx)
			}
			a.Inject(api.Report{Task: tid(id, 0, 1), Event: api.EventExited, Outcome: string(agent.OutcomePreempted),
				Error: "stopped by the agent's fence: no reply from the master for 21s", At: h.clock.Now()})
			a.Forget(tid(id, 0, 1))
			if tt.lostFor > 0 {
				if _, err := a.Register(h.ctx); err != nil {
					t.Fatal(err)
				}
			}
			h.sync(a)
			if got := h.taskState(id, 0); got != tt.wantTask {
				t.Fatalf("task %s, want %s", got, tt.wantTask)
			}
			atts, err := h.st.Attempts(h.ctx, store.AttemptFilter{JobID: id})
			if err != nil {
				t.Fatal(err)
			}
			if len(atts) != 1 || atts[0].EndState != tt.wantAttempt {
				t.Fatalf("attempts %+v, want one, %s", atts, tt.wantAttempt)
			}
		})
	}
}
