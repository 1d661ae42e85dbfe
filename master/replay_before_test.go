package master

// Node events before a submission of their second (rdown.early): the
// live master runs a pass after the node event, before the job is even
// submitted, where the simulator observes an instant's scripted events
// after its submissions. The export names the job in the event's before
// (whatif_before.go) and the simulator observes the event just before
// it. Without, both cases replayed the submission first: the more
// important job took the slots that the live pass gave the job waiting.

func beforeSubmitCases() []replayCase {
	return []replayCase{
		// n1, drained from 5, is resumed at 300 just before high is
		// submitted: the resume's pass starts w there, and high, more
		// important, waits for it (no preemption).
		{name: "priority-resume-before-submit", config: "pools:\n  - {name: default, policy: priority}\n", nodes: replayNodes,
			drains: []rdown{{node: "n1", at: 5, back: 300, early: true}}, jobs: []rjob{
				{name: "b", slots: 2, submit: 0, run: 1000},
				{name: "c", slots: 1, submit: 0, run: 1000},
				{name: "w", slots: 4, submit: 60, run: 200},
				{name: "high", slots: 4, submit: 300, run: 100, extra: `, "priority": 10`},
			}},
		// n3 is lost at 300 just before s is submitted: p, preemptible,
		// waits again and its pass restarts it on n2's free slot, where
		// s, more important, would have started.
		{name: "priority-loss-before-submit", config: "pools:\n  - {name: default, policy: priority}\nlost_node_grace: 0s\n",
			nodes: replayNodes, downs: []rdown{{node: "n3", at: 300, back: 900, early: true}}, jobs: []rjob{
				{name: "a", slots: 4, submit: 0, run: 2000},
				{name: "p", slots: 1, submit: 0, run: 500, extra: preemptible},
				{name: "q", slots: 1, submit: 1, run: 2000},
				{name: "s", slots: 1, submit: 300, run: 100, extra: `, "priority": 10`},
			}},
	}
}
