package master

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// TestStartFails: an attempt whose agent could not start it (it reports
// the attempt exited, failed, without running it) ends its task as
// lifecycle.StartFailed says — failed and never rescheduled, even for a
// preemptible job — with a reason naming the node and the agent's error;
// a gang's part that could not start has the other parts killed; the
// job fails; and the what-if export writes the start as start_fails. A
// part that ran and then failed is an ordinary failure.
func TestStartFails(t *testing.T) {
	const why = "chdir /no/such/dir: no such file or directory"
	fails := func(sp agent.TaskSpec) *mastertest.Exit { return &mastertest.Exit{StartError: why} }
	for _, c := range []struct {
		name  string
		slots int
		extra string
		// onStart is each agent's: n1's, then n2's.
		onStart [2]func(agent.TaskSpec) *mastertest.Exit
		reason  string
		starts  []scenario.StartFail
		// causes are the task's transitions that keep a cause (causesOf).
		causes []string
	}{
		{name: "a preemptible task", slots: 2, extra: `, "preemptible": true`, onStart: [2]func(agent.TaskSpec) *mastertest.Exit{fails, fails},
			reason: "could not start on node n1: " + why, starts: []scenario.StartFail{{Task: 0, Attempt: 1}},
			causes: []string{"0 starting → failed: start_failed"}},
		{name: "a gang's part", slots: 6, onStart: [2]func(agent.TaskSpec) *mastertest.Exit{nil, fails},
			reason: "could not start on node n2: " + why, starts: []scenario.StartFail{{Task: 0, Attempt: 1}},
			causes: []string{"0 starting → killing: start_failed", "0 killing → failed: start_failed"}},
		{name: "a part that ran", slots: 2, onStart: [2]func(agent.TaskSpec) *mastertest.Exit{func(agent.TaskSpec) *mastertest.Exit {
			return &mastertest.Exit{Outcome: agent.OutcomeFailed, ExitCode: 127}
		}, nil}, reason: "failed with exit code 127 (command not found) on node n1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			t0 := h.clock.Now()
			a, b := h.agent("n1", 4), h.agent("n2", 4)
			a.OnStart, b.OnStart = c.onStart[0], c.onStart[1]
			id := h.submit(jobSpec("train", c.slots, c.extra))
			h.step()
			for range 4 { // the starts out, their reports in, a gang's kill out, its report in
				h.sync(a, b)
			}
			tasks, err := h.st.Tasks(h.ctx, store.TaskFilter{JobID: id})
			if err != nil {
				t.Fatal(err)
			}
			want := lifecycle.StartFailed()
			if c.starts == nil {
				want = store.TaskFailed
			}
			if tk := tasks[0]; tk.State != want || tk.Restarts != 0 || tk.Reason != c.reason {
				t.Fatalf("task %s, %d restarts, reason %q; want %s, none, %q", tk.State, tk.Restarts, tk.Reason, want, c.reason)
			}
			if got := h.causesOf(id); !slices.Equal(got, c.causes) {
				t.Errorf("causes %q, want %q", got, c.causes)
			}
			if j := h.job(id); j.State != string(store.JobFailed) {
				t.Errorf("job %s (%s), want failed", j.State, j.Reason)
			}
			if c.slots > 4 && !slices.ContainsFunc(a.Commands(), func(cmd api.Command) bool { return cmd.Type == api.CommandKill }) {
				t.Errorf("the gang's running part on n1 was not killed: %+v", a.Commands())
			}
			h.clock.Advance(time.Minute)
			sc, body := exportScenario(t, h, window(t0, h.clock.Now()))
			if len(sc.Jobs) != 1 {
				t.Fatalf("exported %d jobs, want 1\n%s", len(sc.Jobs), body)
			}
			got := sc.Jobs[0].StartFails
			for i := range got {
				got[i].Line = 0
			}
			if !slices.Equal(got, c.starts) || (c.starts == nil) != (len(sc.Jobs[0].Fails) == 1) {
				t.Errorf("start_fails %+v and fails %+v, want start_fails %+v\n%s", got, sc.Jobs[0].Fails, c.starts, body)
			}
			if c.starts != nil && !strings.Contains(body, "start_fails:") {
				t.Errorf("the export writes no start_fails:\n%s", body)
			}
		})
	}
}
