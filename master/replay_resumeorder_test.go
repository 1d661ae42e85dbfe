package master

import "testing"

// TestReplayResumeOrder: which waiting task of a job starts first when
// one was preempted and another lost its node later (trial i, finding
// 7). x's task 1 is preempted for h at 50, its task 0 lost with n2 at
// 100; when h ends at 150 only n3 is free: the simulator's job resumes
// the last requeued first, task 0, and so does the master, which ordered
// a task requeued without a preemption by its preemption alone (task 1
// started live, task 0 in the replay).
func TestReplayResumeOrder(t *testing.T) {
	cfg := "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 0s\n"
	jobs := []rjob{
		{name: "f", slots: 2, submit: 0, run: 3000},
		{name: "x", slots: 2, tasks: 2, submit: 0, run: 1000, extra: lowPrio},
		{name: "h", slots: 2, submit: 50, run: 100},
	}
	checkBatchedAndLive(t, []replayCase{{name: "priority-resume-order", config: cfg,
		nodes: []rnode{{"n1", 2}, {"n2", 2}, {"n3", 2}}, downs: []rdown{{node: "n2", at: 100, back: 2000}}, jobs: jobs}})
}
