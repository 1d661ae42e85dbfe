package master

// An end after a pass of its second (trial 2026-11-29j J1): x, submitted
// at 10.1, is started by the pass its submission brought about on n1,
// as a still runs on n2 (best fit would take n2); a's task exits at
// 10.8, later in that second. The replay took a second's ends before its
// submissions, so n2 was free for x, and x started there. The export
// marks a's end ends_after_pass: the replay settles the second first
// (x's start), then ends a, then settles again.

func endAfterPassCases() []replayCase {
	return []replayCase{
		{name: "fifo-end-after-pass", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 2, submit: 0, run: 10.8},
			{name: "x", slots: 2, submit: 10.1, run: 100},
			{name: "y", slots: 2, submit: 20, run: 50},
		}},
	}
}
