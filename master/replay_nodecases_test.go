package master

// nodeCases are replay cases of nodes changing in ways the cases of
// featureCases do not: drains and resumes of several nodes in one
// second.
func nodeCases() []replayCase {
	return []replayCase{
		// Two drains in one second (n1 and n3 at 100), and a drain with a
		// resume (n2 drained and n1 resumed at 300), on different nodes:
		// high waits for a node it may start on or preempt on, rather
		// than preempt a task on a drained node.
		{name: "priority-drain-same-second", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, drains: sameSecondDrains, jobs: sameSecondDrainJobs},
		{name: "fifo-drain-same-second", config: "pools:\n  - {name: default, policy: fifo}\n",
			nodes: replayNodes, drains: sameSecondDrains, jobs: sameSecondDrainJobs},
	}
}

// sameSecondDrains drain n1 and n3 in one second, and drain n2 in the
// second n1 is resumed.
var sameSecondDrains = []rdown{{node: "n1", at: 100, back: 300}, {node: "n3", at: 100, back: 700}, {node: "n2", at: 300, back: 650}}

// sameSecondDrainJobs keep every node busy when the drains come, with
// jobs waiting for the slots they free.
var sameSecondDrainJobs = []rjob{
	{name: "low1", slots: 4, submit: 0, run: 250, extra: lowPrio},
	{name: "low2", slots: 2, submit: 0, run: 800, extra: lowPrio},
	{name: "low3", slots: 1, submit: 5, run: 300, extra: lowPrio},
	{name: "high", slots: 2, submit: 120, run: 200, extra: `, "priority": 10`},
	{name: "w", slots: 3, submit: 130, run: 100, extra: lowPrio},
	{name: "mid", slots: 1, submit: 200, run: 200, extra: `, "priority": 40`},
	{name: "s", slots: 2, submit: 310, run: 100, extra: `, "priority": 40`},
}
