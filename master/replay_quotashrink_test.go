package master

import "testing"

// TestReplayQuotaShrink: quota reclaim's shrink replays byte for byte,
// batched and live. vision (quota 2) runs e, elastic (4 slots, down to
// 2), on n1's 4 GPUs; other (quota 3) fills n2 and n3 within its quota.
// nlp (quota 2) asks for 2 GPUs at 100: evicting e would take vision
// below its quota and other is within its own, so the core shrinks e in
// place to 2 (checkpoint, 20 s) and nlp's job starts on what it gave
// back; e grows back once nlp's job ends.
func TestReplayQuotaShrink(t *testing.T) {
	const cfg = "pools:\n  - {name: default, policy: quota}\ndefault_project: vision\nprojects:\n" +
		"  - {name: vision, quota: 2}\n  - {name: other, quota: 3}\n  - {name: nlp, quota: 2}\n"
	checkBatchedAndLive(t, []replayCase{
		{name: "quota-elastic-shrink", checkpoint: 20, config: cfg, nodes: replayNodes, jobs: []rjob{
			{name: "e", slots: 4, minSlots: 2, submit: 0, run: 1200, project: "vision", extra: preemptible},
			{name: "f", slots: 2, submit: 0, run: 1500, project: "other", extra: preemptible},
			{name: "g", slots: 1, submit: 0, run: 1500, project: "other", extra: preemptible},
			{name: "n", slots: 2, submit: 100, run: 300, project: "nlp"},
		}},
	})
}
