package master

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// featureCases are the replay cases of features beyond the policies'
// basics: elastic jobs, priority and weight changes, checkpoints that
// take time, multifactor pools, licenses and QOS.
func featureCases() []replayCase {
	return append([]replayCase{
		// A job's max_slots caps how many of its tasks run at once, as
		// many as fit in it (lifecycle.MaxRunning): the export folds it
		// into max_concurrent, a scenario's max_slots being an elastic
		// task's size.
		{name: "fifo-max-slots", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: maxSlotsJobs},
		{name: "priority-max-slots", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: maxSlotsJobs},
		// A notebook is interactive (under quota: within its project's
		// quota, never preempted; never moved nor resized) unless it is
		// preemptible, filed so or moved into LOW (lifecycle.Interactive,
		// InteractiveIn). nb, preemptible, runs over a's quota beside a1
		// and is b1's reclaim's victim at 100 (interactive, it would wait
		// for a's quota); p3, a notebook, moves for b at 60 as a training
		// task would, filed preemptible or moved into LOW at 30.
		{name: "quota-interactive-preemptible", config: interactiveQuotaConfig, nodes: replayNodes, jobs: []rjob{
			{name: "a1", slots: 4, submit: 0, run: 1200, project: "a"},
			{name: "nb", slots: 2, submit: 1, run: 1000, project: "a", kind: "notebook", extra: preemptible},
			{name: "b1", slots: 2, submit: 100, run: 600, project: "b"},
		}},
		{name: "fifo-move-notebook", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
			jobs: moveNotebookJobs(rjob{name: "p3", slots: 1, submit: 3, run: 400, kind: "notebook", extra: preemptible})},
		{name: "fifo-move-notebook-low", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
			jobs: moveNotebookJobs(rjob{name: "p3", slots: 1, submit: 3, run: 400, kind: "notebook",
				changes: []rchange{{at: 30, priority: 80}}})},
		// Elastic jobs start shrunk where their full size does not fit
		// and grow (a resize) once slots free up.
		{name: "elastic-fifo", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: elasticJobs},
		{name: "elastic-easy", config: "pools:\n  - {name: default, policy: backfill}\n", nodes: replayNodes, jobs: elasticJobs},
		{name: "elastic-grow-fifo", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: elasticGrowJobs},
		{name: "elastic-grow-easy", config: "pools:\n  - {name: default, policy: backfill}\n", nodes: replayNodes, jobs: elasticGrowJobs},
		{name: "elastic-priority", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n", nodes: replayNodes,
			jobs: elasticJobs},
		// A waiting job raised above running ones preempts them; a
		// running one lowered becomes a victim; an idle job raised jumps
		// the queue.
		{name: "priority-changes", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n", nodes: replayNodes,
			jobs: []rjob{
				{name: "r1", slots: 4, submit: 0, run: 900, extra: `, "priority": 40, "preemptible": true`},
				{name: "r2", slots: 3, submit: 0, run: 800, extra: `, "priority": 30, "preemptible": true`,
					changes: []rchange{{at: 300, priority: 60}}},
				{name: "w1", slots: 3, submit: 10, run: 300, extra: `, "priority": 50`,
					changes: []rchange{{at: 200, priority: 45}, {at: 300, priority: 35}}},
				{name: "w2", slots: 2, submit: 20, run: 200, extra: `, "priority": 50`},
				{name: "w3", slots: 1, submit: 30, run: 100, extra: `, "priority": 55`, changes: []rchange{{at: 100, priority: 20}}},
			}},
		// Into and out of LOW: n becomes preemptible and is preempted
		// for h and h2; l goes into LOW and back, and is preempted no
		// more.
		{name: "priority-class-changes", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: []rjob{
				{name: "n", slots: 4, submit: 0, run: 600, extra: `, "priority": 40`, changes: []rchange{{at: 100, priority: 80}}},
				{name: "l", slots: 2, submit: 0, run: 600, extra: `, "priority": 45`,
					changes: []rchange{{at: 100, priority: 80}, {at: 120, priority: 45}}},
				{name: "o", slots: 1, submit: 0, run: 600, extra: lowPrio},
				{name: "h", slots: 5, submit: 150, run: 100, extra: `, "priority": 10`},
				{name: "h2", slots: 2, submit: 300, run: 100, extra: `, "priority": 10`},
			}},
		// Out of LOW and back for a job filed LOW: f, a command, is
		// its kind's default at 45, not preemptible, so h waits for it
		// rather than preempt it, until f is LOW again.
		{name: "low-filed-leaves-low", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: []rjob{
				{name: "f", slots: 4, submit: 0, run: 600, extra: lowPrio, changes: []rchange{{at: 100, priority: 45}, {at: 250, priority: 80}}},
				{name: "o", slots: 1, submit: 0, run: 600, extra: lowPrio},
				{name: "h", slots: 5, submit: 150, run: 100, extra: `, "priority": 10`},
				{name: "h2", slots: 2, submit: 400, run: 100, extra: `, "priority": 10`},
			}},
		// Weights move the shares of jobs within a project.
		{name: "fair-share-weights", config: fairShareConfig, nodes: replayNodes, jobs: []rjob{
			{name: "a1", slots: 1, tasks: 4, submit: 0, run: 600, project: "a", extra: preemptible},
			{name: "a2", slots: 1, tasks: 4, submit: 0, run: 600, project: "a", extra: preemptible,
				changes: []rchange{{at: 100, weight: 3}}},
			{name: "b1", slots: 1, tasks: 4, submit: 50, run: 400, project: "b", extra: preemptible,
				changes: []rchange{{at: 200, weight: 0.5}, {at: 250, priority: 30}}},
			{name: "b2", slots: 2, submit: 60, run: 300, project: "b", extra: preemptible},
		}},
		// Checkpoints take 30s to land: the preempted tasks hold their
		// slots meanwhile, and the preemptor starts when they land.
		{name: "priority-checkpoint", checkpoint: 30, config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: []rjob{
				{name: "low1", slots: 4, submit: 0, run: 1000, extra: lowPrio},
				{name: "low2", slots: 2, submit: 0, run: 800, extra: lowPrio},
				{name: "low3", slots: 1, submit: 5, run: 700, extra: lowPrio},
				{name: "mid", slots: 2, submit: 100, run: 300, extra: `, "priority": 40`},
				{name: "high", slots: 5, submit: 200, run: 250, extra: `, "priority": 10`},
				{name: "mid2", slots: 1, submit: 215, run: 100, extra: `, "priority": 40`},
				{name: "low4", slots: 1, submit: 210, run: 100, extra: lowPrio, kill: 900},
			}},
		// Exit actions: h1 preempts all three, and f (on_preempt: fail)
		// fails; h2 preempts r (max_retries 1) a second time, which fails
		// it, and o, which waits again and completes. Then the pool's
		// max_retries 1 fails r, and o's own max_retries 3 keeps it.
		{name: "priority-max-retries", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: exitActionJobs(`, "max_retries": 1`, "")},
		{name: "priority-pool-max-retries",
			config: "pools:\n  - {name: default, policy: priority, preemption: true, max_retries: 1}\n",
			nodes:  replayNodes, jobs: exitActionJobs("", `, "max_retries": 3`)},
		// Moves and resizes whose checkpoints take 30s: the task holds its
		// old slots and its new placement meanwhile, does no work, and
		// restarts on the new placement when the checkpoint lands (p3
		// moves at 60 and restarts at 90; b starts at 90). Elastic tasks
		// grow in place and elsewhere, one in the second it started.
		{name: "fifo-move-checkpoint", checkpoint: 30, config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
			jobs: moveJobs},
		// n1, where p3's move reserved its slot, is lost while p3
		// checkpoints (and a, not preemptible, with it): the checkpoint
		// lands on n2 at 90 and p3 waits again, as after a preemption
		// (lifecycle.Restartable), until n1 is back.
		{name: "fifo-move-checkpoint-reserved-lost", checkpoint: 30, config: "pools:\n  - {name: default, policy: fifo}\nlost_node_grace: 0s\n",
			nodes: replayNodes, jobs: moveJobs, downs: []rdown{{node: "n1", at: 70, back: 200}}},
		{name: "elastic-fifo-checkpoint", checkpoint: 30, config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
			jobs: elasticJobs},
		{name: "elastic-grow-fifo-checkpoint", checkpoint: 30, config: "pools:\n  - {name: default, policy: fifo}\n",
			nodes: replayNodes, jobs: elasticGrowJobs},
		{name: "elastic-priority-checkpoint", checkpoint: 30, config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: elasticJobs},
		{name: "fair-share-checkpoint", checkpoint: 20, config: fairShareConfig, nodes: replayNodes, jobs: []rjob{
			{name: "a1", slots: 1, tasks: 6, submit: 0, run: 900, project: "a", extra: preemptible},
			{name: "a2", slots: 1, submit: 0, run: 800, project: "a", extra: preemptible},
			{name: "b1", slots: 1, tasks: 4, submit: 60, run: 300, project: "b", extra: preemptible},
			{name: "b2", slots: 2, submit: 90, run: 300, project: "b", extra: preemptible},
		}},
		// Tasks exit with an error: a job's only task, a trial of an
		// experiment whose others complete, a task preempted before it
		// fails (its work counted across attempts), an elastic task.
		{name: "fifo-fail", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: failJobs},
		{name: "priority-fail", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n", nodes: replayNodes,
			jobs: failJobs},
		// Starts that fail: a job's only task, a trial of an experiment
		// whose others complete, a gang over two nodes, a task whose
		// resume after a preemption fails (under priority; under FIFO it
		// is never preempted and completes).
		{name: "fifo-start-fail", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: startFailJobs},
		{name: "priority-start-fail", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n", nodes: replayNodes,
			jobs: startFailJobs},
		// Nodes lost and back (the export's node_down and node_up, from
		// the store's node history): a preemptible job's task waits again
		// with its work lost, one that is not preemptible fails, and the
		// returns make room.
		{name: "priority-node-loss", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 0s\n",
			nodes: replayNodes, downs: []rdown{{node: "n1", at: 100, back: 400}, {node: "n3", at: 150, back: 250}, {node: "n2", at: 200, back: 450}}, jobs: []rjob{
				{name: "a", slots: 4, submit: 0, run: 600, extra: lowPrio},
				{name: "b", slots: 2, submit: 0, run: 500},
				{name: "c", slots: 1, submit: 0, run: 300, extra: preemptible},
				{name: "d", slots: 2, submit: 50, run: 200},
				{name: "e", slots: 1, submit: 120, run: 100, extra: lowPrio},
			}},
		// Exit actions after a loss, which counts as a retry: c (on_preempt:
		// fail) fails when n3 is lost; a (max_retries 1) waits again when
		// n1 is lost and fails when it is lost again.
		{name: "priority-node-loss-max-retries", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 0s\n",
			nodes: replayNodes, downs: []rdown{{node: "n1", at: 100, back: 200}, {node: "n3", at: 150, back: 250}, {node: "n1", at: 300, back: 400}},
			jobs: []rjob{
				{name: "a", slots: 4, submit: 0, run: 1000, extra: lowPrio + `, "max_retries": 1`},
				{name: "b", slots: 2, submit: 0, run: 500},
				{name: "c", slots: 1, submit: 0, run: 600, extra: preemptible + `, "on_preempt": "fail"`},
				{name: "d", slots: 1, submit: 260, run: 100, extra: lowPrio},
			}},
		// Nodes drained under running work and resumed later: nothing
		// starts on a drained node, and a task there is no victim (its
		// slots would not come back): high preempts elsewhere or waits
		// for n2's resume, never low2 there.
		{name: "priority-drain", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, drains: []rdown{{node: "n2", at: 50, back: 600}, {node: "n3", at: 400}}, jobs: []rjob{
				{name: "low1", slots: 4, submit: 0, run: 1000, extra: lowPrio},
				{name: "low2", slots: 2, submit: 0, run: 800, extra: lowPrio},
				{name: "low3", slots: 1, submit: 5, run: 300, extra: lowPrio},
				{name: "high", slots: 2, submit: 100, run: 200, extra: `, "priority": 10`},
				{name: "w", slots: 1, submit: 150, run: 100, extra: lowPrio},
				{name: "mid", slots: 1, submit: 320, run: 200, extra: `, "priority": 40`},
				{name: "s", slots: 1, submit: 450, run: 100, extra: `, "priority": 40`},
			}},
		// Periodic checkpoints (checkpoint_every): the core weighs the
		// work a preemption would lose since each task's last one, which
		// the master estimates from the job file as the simulator does,
		// and a preempted task keeps only the work its periodic
		// checkpoints saved (the driver's model, as the simulator's).
		// Without the export's checkpoint_every, high preempted low2 in
		// the replay (its estimate of the work lost differed) and every
		// decision after. Checkpoints landing at once, and after 30s.
		{name: "priority-checkpoint-every", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: everyJobs},
		{name: "priority-checkpoint-every-cost", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: everyJobs, checkpoint: 30},
		{name: "fifo-drain", config: "pools:\n  - {name: default, policy: fifo}\n",
			nodes: replayNodes, drains: []rdown{{node: "n1", at: 50, back: 450}, {node: "n3", at: 200}}, jobs: []rjob{
				{name: "a", slots: 4, submit: 0, run: 300},
				{name: "b", slots: 2, submit: 0, run: 500},
				{name: "c", slots: 1, submit: 0, run: 100},
				{name: "d", slots: 2, submit: 60, run: 200},
				{name: "e", slots: 1, submit: 120, run: 100},
				{name: "f", slots: 3, submit: 250, run: 100, kill: 700},
			}},
		// Nodes lost with a lost_node_grace: the tasks that are not
		// preemptible are held through the loss (lifecycle's
		// HoldsThroughLoss), the preemptible ones lost at once. n2 is back
		// within the grace and its held task runs on; n1 stays lost past
		// it, and its held tasks fail when it ends.
		{name: "priority-node-loss-grace", config: "pools:\n  - {name: default, policy: priority, preemption: true}\nlost_node_grace: 60s\n",
			nodes: replayNodes, downs: []rdown{{node: "n2", at: 100, back: 130}, {node: "n3", at: 150, back: 250}, {node: "n1", at: 300, back: 500}},
			jobs: []rjob{
				{name: "a", slots: 4, submit: 0, run: 600, extra: lowPrio},
				{name: "b", slots: 2, submit: 0, run: 500},
				{name: "c", slots: 1, submit: 0, run: 300, extra: preemptible},
				{name: "d", slots: 2, submit: 50, run: 400},
				{name: "e", slots: 1, submit: 120, run: 100, extra: lowPrio},
			}},
		// A start no agent answers: b's first attempt (not preemptible)
		// holds its slots until the master gives it up, its start grace
		// after the delivery, and b waits again and restarts (export:
		// start_lost); under FIFO and priority with preemption.
		{name: "fifo-start-lost", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: startLostJobs},
		{name: "priority-start-lost", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n", nodes: replayNodes,
			jobs: startLostJobs},
		// b, not preemptible, with max_retries 0: its lost start counts
		// as a retry, so its exit actions fail it rather than requeue it,
		// live and in the replay (the export writes a job's exit actions
		// whether it is preemptible or not).
		{name: "fifo-start-lost-max-retries", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
			jobs: startLostOnce()},
		// A move or resize continues the attempt: its time limit runs
		// from the attempt's first start (p3 moves at 60 and reaches its
		// limit at 423; e1 grows at 300 and reaches its at 500).
		{name: "backfill-move-limits", config: "pools:\n  - {name: default, policy: backfill}\n", nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 3, submit: 0, run: 1000, extra: `, "time_limit": 1100`},
			{name: "p1", slots: 1, submit: 1, run: 50, extra: `, "preemptible": true, "time_limit": 100`},
			{name: "p2", slots: 1, submit: 2, run: 1000, extra: `, "preemptible": true, "time_limit": 1100`},
			{name: "p3", slots: 1, submit: 3, run: 440, extra: `, "preemptible": true, "time_limit": 420`},
			{name: "b", slots: 2, submit: 60, run: 300, extra: `, "time_limit": 400`},
			{name: "w", slots: 4, submit: 70, run: 300, extra: `, "time_limit": 400`},
			{name: "s", slots: 1, submit: 80, run: 300, extra: `, "time_limit": 340`},
		}},
		{name: "elastic-limits", config: "pools:\n  - {name: default, policy: backfill}\n", nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 3, submit: 0, run: 300, extra: `, "time_limit": 400`},
			{name: "b", slots: 1, submit: 0, run: 200, extra: `, "time_limit": 300`},
			{name: "e1", slots: 4, minSlots: 1, submit: 0, run: 400, extra: `, "time_limit": 500`},
			{name: "c", slots: 2, submit: 50, run: 100, extra: `, "time_limit": 200`},
			{name: "s", slots: 1, submit: 320, run: 100, extra: `, "time_limit": 150`},
		}},
		{name: "multifactor", config: multifactorConfig, nodes: replayNodes, jobs: multifactorJobs},
		{name: "multifactor-fair-tree", config: strings.Replace(multifactorConfig, "classic", "fair_tree", 1), nodes: replayNodes,
			jobs: multifactorJobs},
		// A node drained under a multifactor pool replays alike. (This
		// workload's order does not turn on the fair-share capacity a
		// drain used to shrink live; TestFairShareCapacityKeepsNodes pins
		// that the capacity keeps the drained node's slots, and
		// multifactor-node-loss replays a loss whose capacity decides.)
		{name: "multifactor-drain", config: multifactorConfig, nodes: replayNodes, jobs: multifactorJobs,
			drains: []rdown{{node: "n2", at: 40, back: 650}}},
		// Jobs wait for matlab seats with slots free, and a QOS that
		// preempts (emergency) jumps the queue.
		{name: "licenses-qos", config: licensesConfig, nodes: replayNodes, jobs: []rjob{
			{name: "m1", slots: 1, submit: 0, run: 400, extra: `, "licenses": {"matlab": 1}`},
			{name: "m2", slots: 1, submit: 0, run: 300, extra: `, "licenses": {"matlab": 1}, "preemptible": true, "priority": 80`},
			{name: "m3", slots: 2, submit: 10, run: 200, extra: `, "licenses": {"matlab": 1}`},
			{name: "w", slots: 2, submit: 20, run: 600, extra: preemptible},
			{name: "hi", slots: 2, submit: 30, run: 300, extra: `, "qos": "high"`},
			{name: "em", slots: 3, submit: 100, run: 200, extra: `, "qos": "emergency"`},
			{name: "m4", slots: 1, submit: 150, run: 100, extra: `, "licenses": {"matlab": 2}, "qos": "high"`},
			{name: "lo", slots: 1, submit: 160, run: 100, extra: `, "qos": "low", "preemptible": true`},
		}},
		// Tasks that ran for different times: each replays its own
		// work (runs), across a preemption too.
		{name: "fifo-task-runs", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: runsJobs},
		{name: "priority-task-runs", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, jobs: runsJobs},
	}, append(killPreemptingCases(), killMoveCases()...)...)
}

// runsJobs: the trials of y and the tasks of e (elastic) run for
// different times; under priority h preempts y's and e's tasks, which
// resume with the work they had left.
var runsJobs = []rjob{
	{name: "y", slots: 1, tasks: 4, submit: 0, run: 300, runs: map[int]float64{0: 100, 2: 550}, extra: lowPrio},
	{name: "e", slots: 2, minSlots: 1, tasks: 2, submit: 5, run: 200, runs: map[int]float64{1: 80}, extra: preemptible},
	{name: "h", slots: 6, submit: 150, run: 100, extra: `, "priority": 10`},
	{name: "z", slots: 1, submit: 160, run: 100},
}

// interactiveQuotaConfig: a quota pool that reclaims, a's quota n1's 4
// slots and b's 3.
const interactiveQuotaConfig = `
pools:
  - {name: default, policy: quota, preemption: true}
projects:
  - {name: a, quota: 4}
  - {name: b, quota: 3}
default_project: a
`

// moveNotebookJobs are moveJobs with p3, which moves for b, made p.
func moveNotebookJobs(p rjob) []rjob {
	jobs := slices.Clone(moveJobs)
	jobs[3] = p
	return jobs
}

// maxSlotsJobs: the trials of e (max_slots 2) run two at a time, those
// of g (elastic, 2 slots each, max_slots 5) two at a time too; w waits
// behind them under FIFO, not under priority, which p outranks.
var maxSlotsJobs = []rjob{
	{name: "e", slots: 1, tasks: 4, submit: 0, run: 100, extra: `, "max_slots": 2`},
	{name: "g", slots: 2, minSlots: 1, tasks: 3, submit: 1, run: 200, extra: `, "max_slots": 5`},
	{name: "w", slots: 3, submit: 2, run: 100},
	{name: "p", slots: 1, submit: 3, run: 50, extra: `, "priority": 10`},
}

// startLostJobs: b's first start is never answered; d, submitted while
// it waits to be given up, and a trial of e whose first start is lost.
var startLostJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 300, extra: lowPrio},
	{name: "b", slots: 2, submit: 10, run: 200, startLost: 1},
	{name: "c", slots: 1, submit: 10, run: 100},
	{name: "d", slots: 1, submit: 11, run: 100},
	{name: "e", slots: 1, tasks: 2, submit: 20, run: 150, extra: preemptible, startLost: 1, startLostTask: 1},
}

// startLostOnce are startLostJobs with b, not preemptible, giving
// max_retries 0.
func startLostOnce() []rjob {
	jobs := slices.Clone(startLostJobs)
	jobs[1].extra = `, "preemptible": false, "max_retries": 0`
	return jobs
}

// elasticJobs: e1 starts shrunk beside a, in the same instant as b,
// and grows when a ends; e2 waits, starts shrunk and grows twice.
var elasticJobs = []rjob{
	{name: "a", slots: 3, submit: 0, run: 300, extra: preemptible},
	{name: "b", slots: 1, submit: 0, run: 200, extra: preemptible},
	{name: "e1", slots: 4, minSlots: 1, submit: 0, run: 400, extra: preemptible},
	{name: "c", slots: 2, submit: 50, run: 100},
	{name: "f", slots: 3, submit: 1000, run: 100},
	{name: "e3", slots: 4, minSlots: 1, submit: 1000, run: 200},
	{name: "e2", slots: 2, minSlots: 1, submit: 60, run: 300, extra: `, "priority": 20, "preemptible": true`},
	{name: "d", slots: 1, submit: 310, run: 100, extra: `, "priority": 10`},
}

// elasticGrowJobs: e starts at 1 of its 3 slots (3 do not fit, and 3/2
// is 1) with a slot to spare, and doubles in the next pass of the same
// instant, which FIFO and EASY alone would not run (lifecycle.OneShot).
var elasticGrowJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 300},
	{name: "b", slots: 1, submit: 0, run: 500},
	{name: "e", slots: 3, minSlots: 1, submit: 0, run: 200},
	{name: "c", slots: 2, submit: 100, run: 100},
}

// multifactorConfig weighs fair share between two projects, age and
// QOS, and preempts for the emergency QOS.
const multifactorConfig = `
pools:
  - name: default
    policy: multifactor
    preemption: true
    multifactor: {fair_share: 100, qos: 1000, age: 10, max_age: 1h, fair_share_mode: classic}
projects:
  - {name: a, shares: 2}
  - {name: b}
default_project: a
qos:
  - {name: normal}
  - {name: high, priority: 10}
  - {name: emergency, priority: 100, preempt: true}
decay: {period: 5m, per_period: 0.5}
`

// multifactorJobs: project a runs first and its usage counts against
// it when b's jobs come; an emergency job preempts.
var multifactorJobs = []rjob{
	{name: "a1", slots: 4, submit: 0, run: 900, project: "a", extra: preemptible},
	{name: "a2", slots: 2, submit: 0, run: 600, project: "a", extra: preemptible},
	{name: "a3", slots: 2, submit: 30, run: 300, project: "a", extra: preemptible},
	{name: "b1", slots: 2, submit: 60, run: 300, project: "b", extra: preemptible},
	{name: "a4", slots: 1, submit: 90, run: 200, project: "a", extra: `, "qos": "high", "preemptible": true`},
	{name: "b2", slots: 1, submit: 120, run: 400, project: "b", extra: preemptible},
	{name: "em", slots: 3, submit: 700, run: 100, project: "b", extra: `, "qos": "emergency"`},
	{name: "a5", slots: 2, submit: 710, run: 100, project: "a", extra: preemptible, kill: 900},
}

// licensesConfig: a priority pool with preemption, two matlab seats and
// three QOS levels (the default not the first).
const licensesConfig = `
pools:
  - {name: default, policy: priority, preemption: true}
qos:
  - {name: low}
  - {name: normal, priority: 5}
  - {name: high, priority: 20}
  - {name: emergency, priority: 50, preempt: true}
default_qos: normal
licenses: {matlab: 2}
`

// failJobs: x fails alone, a trial of y fails while the others complete,
// p is preempted by h before it fails, e is elastic.
var failJobs = []rjob{
	{name: "x", slots: 2, submit: 0, run: 300, fail: 100},
	{name: "y", slots: 1, tasks: 3, submit: 0, run: 200, fail: 50, failTask: 1, extra: lowPrio},
	{name: "p", slots: 2, submit: 10, run: 400, fail: 150, extra: lowPrio},
	{name: "h", slots: 4, submit: 60, run: 100, extra: `, "priority": 10`},
	{name: "e", slots: 4, minSlots: 1, submit: 70, run: 100, fail: 40, extra: preemptible},
	{name: "z", slots: 1, submit: 80, run: 100},
}

// startFailJobs: x cannot start and w starts in its slots at once; a
// trial of y cannot start while the others complete; the gang g (5
// slots, over three nodes) cannot start (under priority it preempted y
// for them first); p is preempted by h, and its resume cannot start.
var startFailJobs = []rjob{
	{name: "x", slots: 2, submit: 0, run: 300, startFail: 1, extra: preemptible},
	{name: "y", slots: 1, tasks: 3, submit: 0, run: 200, startFail: 1, startFailTask: 2, extra: lowPrio},
	{name: "w", slots: 2, submit: 0, run: 100},
	{name: "g", slots: 5, submit: 30, run: 100, startFail: 1},
	{name: "p", slots: 2, submit: 300, run: 400, startFail: 2, extra: lowPrio},
	{name: "h", slots: 6, submit: 360, run: 100, extra: `, "priority": 10`},
	{name: "z", slots: 1, submit: 380, run: 100},
}

// randomFeatureCases run a random workload that uses the features of
// featureCases together (elastic jobs, priority changes, failing tasks,
// checkpoints that take checkpoint seconds) under each policy, and
// multifactor.
func randomFeatureCases(seed uint64, checkpoint float64) []replayCase {
	cases := randomCases(seed)
	r := rand.New(rand.NewPCG(seed, 2))
	for i := range cases {
		c := &cases[i]
		c.name = strings.Replace(c.name, "random", "features", 1)
		c.checkpoint = checkpoint
		jobs := append([]rjob(nil), c.jobs...)
		for k := range jobs {
			j := &jobs[k]
			switch r.IntN(5) {
			case 0:
				if j.tasks == 1 && j.slots > 1 && !strings.Contains(j.extra, "time_limit") {
					j.minSlots = 1
				}
			case 1:
				j.fail = float64(10 + r.IntN(int(j.run)/2))
			case 2:
				// Not a job filed LOW: leaving LOW, it stays preemptible
				// live and not in the simulator (docs/architecture.md).
				if !strings.Contains(j.extra, `"priority": 80`) {
					j.changes = []rchange{{at: j.submit + float64(10+r.IntN(200)), priority: []int{10, 40, 45}[r.IntN(3)]}}
				}
			}
		}
		c.jobs = jobs
	}
	mf := cases[0]
	mf.name = fmt.Sprintf("features%d-multifactor", seed)
	mf.config = multifactorConfig
	mf.jobs = append([]rjob(nil), mf.jobs...)
	for k := range mf.jobs {
		mf.jobs[k].changes = nil // multifactor pools compute priorities
	}
	return append(cases, mf)
}

// everyJobs checkpoint every 60, 100 and 45 seconds, and are preempted
// by jobs that weigh the work each would lose.
var everyJobs = []rjob{
	{name: "low1", slots: 4, submit: 0, run: 1000, extra: lowPrio, every: 60},
	{name: "low2", slots: 2, submit: 0, run: 800, extra: lowPrio, every: 100},
	{name: "low3", slots: 1, submit: 0, run: 500, extra: lowPrio, every: 45},
	{name: "high", slots: 2, submit: 130, run: 200, extra: `, "priority": 10`},
	{name: "high2", slots: 4, submit: 400, run: 100, extra: `, "priority": 10`},
	{name: "high3", slots: 1, submit: 410, run: 150, extra: `, "priority": 20`},
}

// exitActionJobs: LOW jobs r and o, with exit actions rExit and oExit,
// and f, which fails at its first preemption, under two preemptions of
// the whole cluster.
func exitActionJobs(rExit, oExit string) []rjob {
	return []rjob{
		{name: "r", slots: 4, submit: 0, run: 1000, extra: lowPrio + rExit},
		{name: "f", slots: 2, submit: 0, run: 1000, extra: lowPrio + `, "on_preempt": "fail"`},
		{name: "o", slots: 1, submit: 0, run: 600, extra: lowPrio + oExit},
		{name: "h1", slots: 7, submit: 100, run: 100, extra: `, "priority": 10`},
		{name: "h2", slots: 7, submit: 400, run: 100, extra: `, "priority": 10`},
	}
}
