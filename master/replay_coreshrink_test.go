package master

import "testing"

// TestReplayElasticOwnAndAhead: the two elastic cases of the core replay
// byte for byte, batched and live. quota-own-shrink: vision (quota 4)
// runs e, elastic (4 slots, down to 2), on n1's 4 GPUs, and other fills
// n2 and n3 within its quota; vision's notebook of 2 at 100, within
// vision's quota, takes the place of vision's own work by shrinking e to
// 2 (checkpoint, 20 s), not by evicting it, and e grows back once the
// notebook ends. priority-grow-ahead: e (NORMAL, 4 slots, down to 1)
// starts at 2 on n2 beside a on n1; LOW tasks take n3 and wait; when a
// ends at 300, e grows to 4 on n1 before the LOW tasks start on the rest.
// multifactor-grow-ahead: the same by multifactor priority (e of the
// high QOS, the tasks waiting of the normal one; at 2, before they start,
// e grows to 3 over n2 and n3, as much of its doubling as fits).
// priority-grow-partial, no preemption: e (4 slots, down to 2) starts at
// 2 beside l1 and l2 on n1's 4 GPUs, LOW work waiting; when l1 ends at
// 300 the doubling does not fit, and e grows to 3 before the LOW work
// takes the GPU, and to 4 when l2 ends.
func TestReplayElasticOwnAndAhead(t *testing.T) {
	const quotaCfg = "pools:\n  - {name: default, policy: quota}\ndefault_project: vision\nprojects:\n" +
		"  - {name: vision, quota: 4}\n  - {name: other, quota: 3}\n"
	const prioCfg = "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	const mfCfg = "pools:\n  - {name: default, policy: multifactor, preemption: true, multifactor: {qos: 100}}\n"
	const low = `, "priority": 80, "preemptible": true`
	checkBatchedAndLive(t, []replayCase{
		{name: "quota-own-shrink", checkpoint: 20, config: quotaCfg, nodes: replayNodes, jobs: []rjob{
			{name: "e", slots: 4, minSlots: 2, submit: 0, run: 1200, project: "vision", extra: preemptible},
			{name: "f", slots: 2, submit: 0, run: 1500, project: "other", extra: preemptible},
			{name: "g", slots: 1, submit: 0, run: 1500, project: "other", extra: preemptible},
			{name: "nb", slots: 2, submit: 100, run: 300, project: "vision", kind: "notebook"},
		}},
		{name: "priority-grow-ahead", checkpoint: 20, config: prioCfg, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 300},
			{name: "e", slots: 4, minSlots: 1, submit: 1, run: 1200, extra: preemptible},
			{name: "low", slots: 1, tasks: 6, submit: 2, run: 400, extra: `, "priority": 80, "preemptible": true`},
		}},
		{name: "multifactor-grow-ahead", checkpoint: 20, config: mfCfg, nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 300, extra: `, "qos": "high"`},
			{name: "e", slots: 4, minSlots: 1, submit: 1, run: 1200, extra: preemptible + `, "qos": "high"`},
			{name: "low", slots: 1, tasks: 6, submit: 2, run: 400, extra: preemptible},
		}},
		{name: "priority-grow-partial", checkpoint: 20, config: "pools:\n  - {name: default, policy: priority}\n", nodes: []rnode{{"n1", 4}}, jobs: []rjob{
			{name: "l1", slots: 1, submit: 0, run: 300, extra: low},
			{name: "l2", slots: 1, submit: 0, run: 600, extra: low},
			{name: "e", slots: 4, minSlots: 2, submit: 1, run: 1200, extra: preemptible},
			{name: "stream", slots: 1, tasks: 4, submit: 2, run: 400, extra: low},
		}},
	})
}
