package master

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/sim"
)

// The replay proof of issue 13: a live run and a simulation of the same
// events make the same decisions. Each case runs a real master with fake
// agents on a fake clock, driven as the simulator's model of work says
// (replayDriver), exports the jobs it ran as a scenario
// (GET /history/scenario), replays that through sim.ReplayDecisions and
// compares its decisions with the live log (GET /history/decisions), the
// canonical decision log of package decisionlog, byte for byte.

// rjob is a job of a replay case: times in seconds from the run's start,
// fractions allowed.
type rjob struct {
	name   string
	slots  int
	tasks  int // > 1: an experiment of that many trials
	submit float64
	// run is the task's work in seconds (the agent reports the exit once
	// the attempts have run this long in all, preemptions keeping the
	// progress made); lag is added to the last attempt only, as an exit
	// reported late within the second.
	run, lag float64
	// runs give tasks (by index) their own work instead of run.
	runs map[int]float64
	// checkpoint, when positive, is how long its tasks take to
	// checkpoint, instead of the case's (which must be positive: the
	// agents hold checkpoints only then).
	checkpoint float64
	// checkpoints, when set, are how long each task's checkpoints take,
	// by their order in the task (a move's, then a preemption's), over
	// checkpoint; those past the list take checkpoint.
	checkpoints []float64
	kill        float64 // when a user kills it; 0 for never
	extra       string  // more "resources" fields, e.g. `, "priority": 10`
	project     string
	pool        string // the job file's pool; "" is the default pool
	kind        string // the job file's kind; "" is the default (command)
	// minSlots makes the job elastic: its tasks ask for slots and may
	// start shrunk down to minSlots. Its run is then the time at full
	// size: the work is run*slots slot-seconds, which an attempt does at
	// the rate of the slots it holds (the simulator's model).
	minSlots int
	// changes are priority, weight, time limit, QOS or nice changes made
	// while the job is live, in order.
	changes []rchange
	// held submits the job held (POST /jobs?hold=true).
	held bool
	// fail, when positive, makes task failTask exit with an error once
	// it has done that much work (at full size for an elastic job).
	fail     float64
	failTask int
	// startFail, when positive, is the attempt of task startFailTask
	// (as the master numbers them) whose start fails: the agents report
	// it exited, failed, without running (mastertest.Exit.StartError).
	startFail     int
	startFailTask int
	// every is the job file's checkpoint_every: a preempted attempt
	// keeps only the work up to its last periodic checkpoint, counted
	// from its start (the simulator's model).
	every float64
	// startLost, when positive, is the attempt of task startLostTask (as
	// the master numbers them) whose start no agent answers
	// (mastertest.Exit.Silent): the master gives it up after its start
	// grace.
	startLost     int
	startLostTask int
	// startLostNode, when set, leaves the start unanswered on that
	// node's agent only: the other parts of a gang run.
	startLostNode string
	// lost, when positive, loses attempt lostAttempt (from 1, as the
	// master numbers them; 0 is 1) of task lostTask that long after its
	// start, its node up: the agent forgets it and registers again
	// without it (replayDriver.loseAttempts).
	lost                  float64
	lostTask, lostAttempt int
	// early, when positive, makes the processes of each attempt that
	// runs to its end exit that long before it (its agent stops listing
	// it then), and its agent, as if cut off from the master, report the
	// exit only at the end, with the time it exited (api.Report.At): the
	// master charges its usage until the exit and frees its GPUs at the
	// end (replay_exit_test.go).
	early float64
	// killSilent, when positive, makes the agents that run the job's
	// attempts fall silent for that long from its kill (kill) or its
	// time limit's: they get the kill command, and report the attempt's
	// end, only then, and the master holds its GPUs, killing, until then
	// (replay_slowkill_test.go).
	killSilent float64
	// limitLate, when positive, runs the master's time-limit check that
	// long after its limit, as a master that kills late (on a tick, or
	// after a restart) does (replay_limitkill_test.go).
	limitLate float64
	// passLate, when positive, runs the pass its submission brings about
	// that long after it, as a live loop's pass may come a few
	// milliseconds after the event, across a second's end
	// (replay_latepass_test.go).
	passLate float64
}

// rchange is a change of a job's priority, weight, time limit, QOS or
// nice (PATCH /jobs/{id}), made by an admin.
type rchange struct {
	at       float64
	priority int     // 0: unchanged
	weight   float64 // 0: unchanged
	limit    string  // the new time limit, as PATCH's time_limit takes it; "": unchanged, "0": none
	qos      string  // "": unchanged
	nice     int     // 0: unchanged
	// hold and release hold or release the job (POST /jobs/{id}/hold,
	// /release) instead of changing it; a refused hold (the job runs)
	// changes nothing (replay_hold_test.go).
	hold, release bool
	// requeue requeues the job instead (POST /jobs/{id}/requeue), with
	// hold held too (replay_requeue_test.go).
	requeue bool
}

type rnode struct {
	name string
	gpus int
}

type replayCase struct {
	name   string
	config string
	nodes  []rnode
	jobs   []rjob
	// tick, when positive, runs the master's Tick (an idle pass, the
	// time-limit check, usage records) every tick seconds between the
	// instants, as the live loop does every second.
	tick float64
	// timed cases have decisions that only time passing brings about (a
	// min_run_time guard lifting): the live master takes them on its
	// idle tick, so they run with ticks only.
	timed bool
	// eager settles after each submission, as the live loop runs a pass
	// after each event; otherwise the submissions of an instant are all
	// made before it settles, as the simulator makes them.
	eager bool
	// checkpoint is how long a preempted task takes to checkpoint: the
	// agents report the landing that long after the request (the export
	// reads it back as the pool's checkpoint_cost); 0 lands at once.
	checkpoint float64
	// downs are nodes lost and back; the config's lost_node_grace (the
	// master's default is 5m) says which tasks are held through a loss,
	// and the export carries it.
	downs []rdown
	// restarts are when the master restarts on its store: before the
	// first instant at or after each, the agents registering again.
	restarts []float64
	// drains are nodes an admin drains at at and, when back is
	// positive, resumes then (POST /nodes/{name}/drain, /resume).
	drains []rdown
	// deletes are nodes an admin deletes at at, idle then
	// (DELETE /nodes/{name}), their agents stopped until back, when
	// positive: a node of the name registers again then.
	deletes []rdown
	// reshapes are nodes whose agents register again at at, their
	// tasks running on, with gpus GPUs (0: as many as before) of type
	// gpu ("": as before) (replay_reshape_test.go).
	reshapes []rdown
	// leaves are nodes whose agents shut down at at, stopping their
	// tasks (preempted) and saying goodbye (the node left), and
	// register again at back, when positive (replay_leave_test.go).
	leaves []rdown
	// reloads are configuration reloads (allot config reload) of the
	// files they give at their instants (replay_reload_test.go).
	reloads []rreload
	// outages are master outages, from at to back, when the master is
	// restarted on its store; the agents' fences stop tasks meanwhile
	// (replay_fence_test.go).
	outages []rdown
}

// rdown is a node lost at at and, when back is positive, back then.
type rdown struct {
	node     string
	at, back float64
	// early takes its events before the submissions of their instant,
	// not after them (replay_before_test.go).
	early bool
	// gpus, for a deletion with a back, is how many GPUs the node of its
	// name registers with then; 0 is as many as before. So is gpu, their
	// type, for a reshape; "" is as before. So is pool, the pool the
	// agent registers in then, and labels, the agent's labels (nil: as
	// before; empty: none).
	gpus   int
	gpu    string
	pool   string
	labels map[string]string
	// stop, for a leave, is how long after its goodbye the agent's tasks
	// stop (its exit grace) and it says its last; 0 is at once.
	stop float64
	// silent, for a leave that a restart of the master interrupts: its
	// agent is not heard from the restart until its leave's end, as one
	// that cannot reach the new master; otherwise it registers with it at
	// once, still leaving, as agentd's does.
	silent bool
	// mid, for a drain or a return, makes it while the core plans the
	// first pass of its instant's settling (replay_midsettle_test.go).
	mid bool
	// takeover, for a loss with a back, makes the return a new agent's
	// that takes the node over with the join token, running none of the
	// held attempts (replay_takeover_test.go).
	takeover bool
}

// replayNodes are nodes of mixed sizes.
var replayNodes = []rnode{{"n1", 4}, {"n2", 2}, {"n3", 1}}

// TestReplayDecisions runs each case twice: batched (at each instant
// the due exits, kills and submissions, then one settling, as the
// simulator takes an instant) and live (a pass after each submission,
// and the idle ticks), and the random workloads (replayRandom; not
// under the race detector, which scripts/test runs them without).
func TestReplayDecisions(t *testing.T) {
	if !raceEnabled {
		replayRandom(t)
	}
	for _, c := range replayCases() {
		if !c.timed {
			t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
		}
		// The live loop ticks every second (DefaultTick); ticks only show
		// that idle passes change nothing, except in timed cases, where
		// the tick in the second a guard lifts is the one that decides.
		c.tick, c.eager = 5, true
		if c.timed {
			c.tick = 1
		}
		t.Run(c.name+"-live", func(t *testing.T) { checkReplay(t, c) })
	}
}

// replayRandom runs the random workloads of TestReplayDecisions: seed
// 13 under every policy, batched and eager, the seeds that found a
// difference, and the feature workloads (seed 16 again with checkpoints
// that take time).
func replayRandom(t *testing.T) {
	for _, c := range randomCases(13) {
		t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
		c.eager = true
		t.Run(c.name+"-eager", func(t *testing.T) { checkReplay(t, c) })
	}
	// Seed 14 found a job killed while it ran that the export completed
	// (every policy) and a tie the master broke otherwise (a quota pool's
	// reclaim, launchorder.go); seed 38 trials of a fair-share pool
	// resuming in another order.
	for _, seed := range []uint64{14, 38} {
		for _, c := range randomCases(seed) {
			if strings.HasSuffix(c.name, map[uint64]string{14: "-quota", 38: "-fair-share"}[seed]) {
				t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
			}
		}
	}
	for _, seed := range featureSeeds {
		for _, c := range randomFeatureCases(seed, 0) {
			t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
		}
	}
	// Seed 16 again with checkpoints of 30s, which its moves and resizes
	// (under FIFO, EASY and conservative backfilling, quota and
	// multifactor) wait for as its preemptions do.
	for _, c := range randomFeatureCases(16, 30) {
		c.name += "-checkpoint"
		t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
	}
}

func replayCases() []replayCase {
	return append([]replayCase{
		{name: "fifo", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 600},
			{name: "b", slots: 2, submit: 0, run: 300},
			{name: "c", slots: 3, submit: 10, run: 200},
			{name: "d", slots: 1, submit: 10, run: 900},
			{name: "e", slots: 6, submit: 20, run: 100},
			{name: "f", slots: 1, submit: 30, run: 50, kill: 400},
			{name: "g", slots: 2, submit: 40, run: 1000, kill: 700},
			{name: "h", slots: 1, submit: 50, run: 60},
			// Starts and ends within seconds: 1500.5 to 1601.2, which the
			// replay must end at 1601, not 1500 + 100.
			{name: "frac", slots: 1, submit: 1500.5, run: 100, lag: 0.7},
		}},
		{name: "fifo-move", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: moveJobs},
		{name: "easy", config: "pools:\n  - {name: default, policy: backfill}\n", nodes: replayNodes, jobs: backfillJobs},
		{name: "conservative", config: "pools:\n  - {name: default, policy: backfill, reservations: conservative}\n",
			nodes: replayNodes, jobs: backfillJobs},
		{name: "priority", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n", nodes: replayNodes,
			jobs: []rjob{
				{name: "low1", slots: 4, submit: 0, run: 1000, extra: lowPrio},
				{name: "low2", slots: 2, submit: 0, run: 800, extra: lowPrio},
				{name: "low3", slots: 1, submit: 5, run: 700, extra: lowPrio},
				{name: "mid", slots: 2, submit: 100, run: 300, extra: `, "priority": 40`},
				{name: "high", slots: 5, submit: 200, run: 250, extra: `, "priority": 10`},
				{name: "low4", slots: 1, submit: 210, run: 100, extra: lowPrio, kill: 900},
				{name: "high2", slots: 1, submit: 300, run: 100, extra: `, "priority": 10, "time_limit": 60`},
			}},
		{name: "priority-min-run-time", timed: true, config: "pools:\n  - {name: default, policy: priority, preemption: true, min_run_time: 5m}\n",
			nodes: replayNodes, jobs: []rjob{
				{name: "low1", slots: 4, submit: 0, run: 1000, extra: lowPrio},
				{name: "low2", slots: 3, submit: 50, run: 1000, extra: lowPrio},
				{name: "high", slots: 3, submit: 100, run: 250, extra: `, "priority": 10`},
			}},
		{name: "fair-share", config: fairShareConfig, nodes: replayNodes, jobs: []rjob{
			{name: "a1", slots: 1, tasks: 6, submit: 0, run: 900, project: "a", extra: preemptible},
			{name: "a2", slots: 1, submit: 0, run: 800, project: "a", extra: preemptible},
			{name: "b1", slots: 1, tasks: 4, submit: 60, run: 300, project: "b", extra: preemptible},
			{name: "b2", slots: 2, submit: 90, run: 300, project: "b", extra: preemptible},
			{name: "a3", slots: 1, submit: 120, run: 100, project: "a", extra: preemptible, kill: 500},
		}},
		{name: "quota", config: quotaConfig, nodes: replayNodes, jobs: []rjob{
			{name: "a1", slots: 4, submit: 0, run: 1200, project: "a", extra: lowPrio},
			{name: "a2", slots: 2, submit: 0, run: 1200, project: "a", extra: lowPrio},
			{name: "a3", slots: 1, submit: 0, run: 600, project: "a"},
			{name: "b1", slots: 2, submit: 100, run: 300, project: "b"},
			{name: "b2", slots: 1, submit: 150, run: 300, project: "b"},
			{name: "b3", slots: 2, submit: 200, run: 100, project: "b", kill: 250},
		}},
	}, append(featureCases(), append(nodeCases(), append(beforeSubmitCases(), append(latePassCases(), endAfterPassCases()...)...)...)...)...)
}

// randomCases run one random workload, from a fixed seed, under each
// policy of the cases above.
func randomCases(seed uint64) []replayCase {
	r := rand.New(rand.NewPCG(seed, 1))
	var jobs []rjob
	at := 0.0
	for i := range 24 {
		j := rjob{name: "r" + strconv.Itoa(i), slots: 1 + r.IntN(3), tasks: 1, run: float64(30 + 10*r.IntN(30)),
			project: []string{"a", "b"}[r.IntN(2)], submit: at}
		if r.IntN(4) == 0 {
			j.tasks = 2 + r.IntN(2)
		}
		switch r.IntN(3) {
		case 0:
			j.extra = lowPrio
		case 1:
			j.extra = `, "priority": 40, "preemptible": true`
		default:
			j.extra = `, "priority": 10`
		}
		if r.IntN(5) == 0 && j.tasks == 1 {
			j.extra += `, "time_limit": ` + strconv.Itoa(max(int(j.run)+60*r.IntN(3)-60, 20))
		}
		if r.IntN(6) == 0 {
			j.kill = j.submit + float64(1+r.IntN(400))
		}
		jobs = append(jobs, j)
		if r.IntN(3) > 0 { // a third share the second of the one before
			at += float64(r.IntN(120))
		}
	}
	configs := []struct{ name, pool string }{
		{"fifo", "{name: default, policy: fifo}"},
		{"easy", "{name: default, policy: backfill}"},
		{"conservative", "{name: default, policy: backfill, reservations: conservative}"},
		{"priority", "{name: default, policy: priority, preemption: true}"},
		{"fair-share", "{name: default, policy: fair_share, preemption: true}"},
		{"quota", "{name: default, policy: quota}"},
	}
	var cases []replayCase
	for _, c := range configs {
		cfg := "pools:\n  - " + c.pool + "\nprojects:\n  - {name: a, quota: 3}\n  - {name: b, quota: 4}\ndefault_project: a\n"
		cases = append(cases, replayCase{name: fmt.Sprintf("random%d-%s", seed, c.name), config: cfg, nodes: replayNodes, jobs: jobs})
	}
	return cases
}

// featureSeeds are the seeds of randomFeatureCases the test runs; seeds
// 13 to 20 all pass, with checkpoints that land at once and with
// checkpoints of 30s.
var featureSeeds = []uint64{13, 14, 15, 16}

// knownDiffs are the runs whose logs differ in a way not resolved yet
// (docs/architecture.md, the replay proof), by subtest name (a case's
// live run ends in -live): the lines that differ, live (-) then replayed
// (+). The run still goes and must differ in exactly these lines, so a
// fix (or any other change) shows and the entry goes. None is left.
// Entries gone: features14-fair-share, whose elastic task was resized
// twice in one second, the second time on other nodes live, agrees since
// the simulator re-places a task only once its last move or resize has
// landed, as the master does (lifecycle.Replannable);
// easy-drains-pass-between, a pass between two drains of one second,
// since the export marks a node event that a deciding pass preceded in
// its second after_pass (afterPassAt); fifo-node-reshaped, a node of a
// deleted one's name registered again with other GPUs, since the export
// writes the node as it was when the window began and the change as a
// node_reshape (whatif_reshaped.go).
var knownDiffs = map[string][]string{}

// changedLines are the removed and added lines of a decisionlog.Diff.
func changedLines(diff string) []string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "+ ") {
			out = append(out, l)
		}
	}
	return out
}

const (
	lowPrio     = `, "priority": 80, "preemptible": true`
	preemptible = `, "preemptible": true`
)

// moveJobs: b fits on one node only if p3 moves from n2 to n3
// (consolidation).
var moveJobs = []rjob{
	{name: "a", slots: 3, submit: 0, run: 1000},
	{name: "p1", slots: 1, submit: 1, run: 50, extra: preemptible},
	{name: "p2", slots: 1, submit: 2, run: 1000, extra: preemptible},
	{name: "p3", slots: 1, submit: 3, run: 400, extra: preemptible},
	{name: "b", slots: 2, submit: 60, run: 300},
}

// backfillJobs leave holes that backfilling fills: a wide job waits behind
// a long one while short ones fit beside it.
var backfillJobs = []rjob{
	{name: "long", slots: 4, submit: 0, run: 1000, extra: `, "time_limit": 1200`},
	{name: "mid", slots: 2, submit: 0, run: 400, extra: `, "time_limit": 500`},
	{name: "wide", slots: 6, submit: 10, run: 300, extra: `, "time_limit": 400`},
	{name: "short1", slots: 1, submit: 20, run: 300, extra: `, "time_limit": 350`},
	{name: "short2", slots: 2, submit: 30, run: 500, extra: `, "time_limit": 600`},
	{name: "tiny", slots: 1, submit: 40, run: 100, kill: 90},
	{name: "late", slots: 3, submit: 50, run: 200, extra: `, "time_limit": 250`},
	{name: "odd", slots: 1, submit: 60.5, run: 250, lag: 0.7, extra: `, "time_limit": 300`},
	{name: "over", slots: 1, submit: 70, run: 900, extra: `, "time_limit": 120`},
}

const fairShareConfig = `
pools:
  - {name: default, policy: fair_share, preemption: true}
projects:
  - {name: a}
  - {name: b}
default_project: a
`

const quotaConfig = `
pools:
  - {name: default, policy: quota}
projects:
  - {name: a, quota: 3}
  - {name: b, quota: 4}
default_project: a
`

// checkReplay runs c live, exports and replays it, and compares the
// checkBatchedAndLive checks each case's replay batched, then live (a
// tick of 5 and eager passes, as a live master runs them), as subtests
// NAME and NAME-live.
func checkBatchedAndLive(t *testing.T, cases []replayCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
		c.tick, c.eager = 5, true
		t.Run(c.name+"-live", func(t *testing.T) { checkReplay(t, c) })
	}
}

// logs; it returns the exported scenario.
func checkReplay(t *testing.T, c replayCase) string {
	h := newHarness(t, withConfig(mustConfig(t, c.config)), reloadable(t, c))
	t0 := h.clock.Now()
	d := newReplayDriver(h, c)
	d.run(t)
	until := h.clock.Now().Add(time.Second)
	// Through the API and the replay allot history check uses.
	q := window(t0, until)
	var live api.DecisionLog
	h.do("GET", "/api/v1/history/decisions"+q, nil, &live)
	sc, body := exportScenario(t, h, q)
	replayed, err := sim.ReplayDecisions(sc)
	if err != nil {
		t.Fatal(err)
	}
	a, b := logText(live.Lines), decisionlog.Format(replayed)
	diff := decisionlog.Diff(a, b, 3)
	if known, ok := knownDiffs[t.Name()[strings.LastIndex(t.Name(), "/")+1:]]; ok {
		if got := changedLines(diff); !slices.Equal(got, known) {
			t.Errorf("the known difference changed (fixed? then drop it from knownDiffs):\n%s\nwant only:\n%s",
				diff, strings.Join(known, "\n"))
		}
	} else if diff != "" {
		t.Errorf("live (-) and replayed (+) decisions differ:\n%s\nscenario:\n%s", diff, body)
	}
	if len(live.Lines) == 0 {
		t.Errorf("no decisions")
	}
	if testing.Verbose() {
		t.Logf("decisions:\n%s\nscenario:\n%s", a, body)
	}
	return body
}

// logText is a decision log's lines as decisionlog.Format writes them.
func logText(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
