package master

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
	"github.com/allot-sched/allot/store"
)

// The replay proof of issue 13: a live run and a simulation of the same
// events make the same decisions. Each case runs a real master with fake
// agents on a fake clock, driven as the simulator's model of work says
// (replayDriver), exports the jobs it ran as a scenario
// (GET /history/scenario), replays that through sim.Run and compares the
// two canonical decision logs (package decisionlog) byte for byte.

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
	kill     float64 // when a user kills it; 0 for never
	extra    string  // more "resources" fields, e.g. `, "priority": 10`
	project  string
	// minSlots makes the job elastic: its tasks ask for slots and may
	// start shrunk down to minSlots. Its run is then the time at full
	// size: the work is run*slots slot-seconds, which an attempt does at
	// the rate of the slots it holds (the simulator's model).
	minSlots int
	// changes are priority or weight changes a user makes, in order.
	changes []rchange
}

// rchange is a change of a job's priority or weight (PATCH /jobs/{id}).
type rchange struct {
	at       float64
	priority int     // 0: unchanged
	weight   float64 // 0: unchanged
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
}

// replayNodes are nodes of mixed sizes.
var replayNodes = []rnode{{"n1", 4}, {"n2", 2}, {"n3", 1}}

// TestReplayDecisions runs each case twice: batched (at each instant
// the due exits, kills and submissions, then one settling, as the
// simulator takes an instant) and live (a pass after each submission,
// and the idle ticks), and the random workload batched and eager.
func TestReplayDecisions(t *testing.T) {
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

func replayCases() []replayCase {
	return []replayCase{
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
		// b fits on one node only if p3 moves from n2 to n3 (consolidation).
		{name: "fifo-move", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes, jobs: []rjob{
			{name: "a", slots: 3, submit: 0, run: 1000},
			{name: "p1", slots: 1, submit: 1, run: 50, extra: preemptible},
			{name: "p2", slots: 1, submit: 2, run: 1000, extra: preemptible},
			{name: "p3", slots: 1, submit: 3, run: 400, extra: preemptible},
			{name: "b", slots: 2, submit: 60, run: 300},
		}},
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
		{name: "fair-share-checkpoint", checkpoint: 20, config: fairShareConfig, nodes: replayNodes, jobs: []rjob{
			{name: "a1", slots: 1, tasks: 6, submit: 0, run: 900, project: "a", extra: preemptible},
			{name: "a2", slots: 1, submit: 0, run: 800, project: "a", extra: preemptible},
			{name: "b1", slots: 1, tasks: 4, submit: 60, run: 300, project: "b", extra: preemptible},
			{name: "b2", slots: 2, submit: 90, run: 300, project: "b", extra: preemptible},
		}},
		{name: "multifactor", config: multifactorConfig, nodes: replayNodes, jobs: multifactorJobs},
		{name: "multifactor-fair-tree", config: strings.Replace(multifactorConfig, "classic", "fair_tree", 1), nodes: replayNodes,
			jobs: multifactorJobs},
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
		{name: "quota", config: quotaConfig, nodes: replayNodes, jobs: []rjob{
			{name: "a1", slots: 4, submit: 0, run: 1200, project: "a", extra: lowPrio},
			{name: "a2", slots: 2, submit: 0, run: 1200, project: "a", extra: lowPrio},
			{name: "a3", slots: 1, submit: 0, run: 600, project: "a"},
			{name: "b1", slots: 2, submit: 100, run: 300, project: "b"},
			{name: "b2", slots: 1, submit: 150, run: 300, project: "b"},
			{name: "b3", slots: 2, submit: 200, run: 100, project: "b", kill: 250},
		}},
	}
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

const (
	lowPrio     = `, "priority": 80, "preemptible": true`
	preemptible = `, "preemptible": true`
)

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

// checkReplay runs c live, exports and replays it, and compares the logs.
func checkReplay(t *testing.T, c replayCase) {
	h := newHarness(t, withConfig(mustConfig(t, c.config)))
	t0 := h.clock.Now()
	d := newReplayDriver(h, c)
	d.run(t)
	until := h.clock.Now().Add(time.Second)
	live, err := h.m.decisionLog(h.ctx, t0, until)
	if err != nil {
		t.Fatal(err)
	}
	q := "?since=" + url.QueryEscape(t0.Format(time.RFC3339)) + "&until=" + url.QueryEscape(until.Format(time.RFC3339))
	code, body, _ := h.raw("GET", "/api/v1/history/scenario"+q, "")
	if code != 200 {
		t.Fatalf("export: %d %s", code, body)
	}
	sc, err := scenario.Parse("history.yaml", []byte(body))
	if err != nil {
		t.Fatalf("the exported scenario does not parse: %v\n%s", err, body)
	}
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: -1, Attempts: true})
	if err != nil {
		t.Fatal(err)
	}
	cost := checkpointCosts(sc)
	replayed := sim.Decisions(res, func(job string) int64 { return cost[job] })
	a, b := decisionlog.Format(live), decisionlog.Format(replayed)
	if diff := decisionlog.Diff(a, b, 3); diff != "" {
		t.Errorf("live (-) and replayed (+) decisions differ:\n%s\nscenario:\n%s", diff, body)
	}
	if len(live) == 0 {
		t.Errorf("no decisions")
	}
	if testing.Verbose() {
		t.Logf("decisions:\n%s", a)
	}
}

// checkpointCosts maps each job of sc to its pool's checkpoint cost.
func checkpointCosts(sc *scenario.Scenario) map[string]int64 {
	pools := map[string]int64{}
	for _, p := range sc.Pools {
		pools[p.Name] = p.CheckpointCost
	}
	out := map[string]int64{}
	for _, j := range sc.Jobs {
		out[j.Name] = pools[j.Pool]
	}
	return out
}

// replayDriver runs a case's jobs on a live master the way the simulator
// models them: the clock jumps from one instant to the next at which
// something is due (a submission, a kill, an attempt's end by its work or
// its time limit); at each it reports the exits due, runs the time-limit
// check, kills, submits, and then settles: syncs the agents and runs a
// pass while the master has an event pending, until none is.
type replayDriver struct {
	h      *harness
	c      replayCase
	t0     time.Time
	agents []*mastertest.Agent
	ids    []int64 // by case job, 0 until submitted
	byID   map[int64]int
	killed []bool
	// changed counts each job's changes made.
	changed []int
	done    map[taskKey]float64 // work done by earlier attempts
	att     map[agent.TaskID]*liveAttempt
	ticks   int
	seq     int64 // the last event seen by tick
	seen    []int // each agent's commands seen
}

type taskKey struct {
	job   int64
	index int
}

type liveAttempt struct {
	start float64
	rate  float64 // work done per second: 1, or an elastic job's slots
	// asked says it was asked to checkpoint, at stop; land is when the
	// agents report the checkpoint landed.
	asked      bool
	stop, land float64
	due        float64 // when its work is done (lag included)
	limit      float64 // when its time limit ends it; +Inf for none
	exited     bool
}

func newReplayDriver(h *harness, c replayCase) *replayDriver {
	d := &replayDriver{h: h, c: c, t0: h.clock.Now(), ids: make([]int64, len(c.jobs)), byID: map[int64]int{},
		killed: make([]bool, len(c.jobs)), changed: make([]int, len(c.jobs)), done: map[taskKey]float64{}, att: map[agent.TaskID]*liveAttempt{}}
	for _, n := range c.nodes {
		ag := h.agent(n.name, n.gpus)
		ag.HoldPreempt = c.checkpoint > 0
		d.agents = append(d.agents, ag)
	}
	d.seen = make([]int, len(d.agents))
	return d
}

// now is the clock in seconds from the start.
func (d *replayDriver) now() float64 { return d.h.clock.Now().Sub(d.t0).Seconds() }

func (d *replayDriver) run(t *testing.T) {
	nextTick := d.c.tick / 2 // ticks fall between the whole seconds of the instants
	for range 100000 {
		next := math.Inf(1)
		for i, j := range d.c.jobs {
			if d.ids[i] == 0 {
				next = min(next, j.submit)
			} else if j.kill > 0 && !d.killed[i] {
				next = min(next, j.kill)
			}
			if d.ids[i] != 0 && !d.killed[i] && d.changed[i] < len(j.changes) {
				next = min(next, j.changes[d.changed[i]].at)
			}
		}
		for _, a := range d.att {
			switch {
			case a.exited:
			case a.asked:
				next = min(next, a.land)
			default:
				next = min(next, a.due, a.limit)
			}
		}
		if math.IsInf(next, 1) {
			return
		}
		if d.c.tick > 0 && !d.waiting() {
			// An idle pass with no task waiting does nothing: skip the
			// ticks to the first after the next instant.
			for nextTick <= next {
				nextTick += d.c.tick
			}
		}
		tick := d.c.tick > 0 && nextTick <= next
		if tick {
			next = nextTick
			nextTick += d.c.tick
		}
		if at := d.now(); next > at {
			d.h.clock.Advance(time.Duration(math.Round((next - at) * 1e9)))
		}
		d.instant(t)
		if tick {
			d.tick(t)
		}
	}
	t.Fatal("the live run did not end")
}

// timeLimit is the job's time limit as the master has it.
func (d *replayDriver) timeLimit(id int64) time.Duration {
	d.h.m.lock()
	defer d.h.m.mu.Unlock()
	return d.h.m.jobs[id].rec.TimeLimit
}

// waiting says whether a task waits to start.
func (d *replayDriver) waiting() bool {
	d.h.m.lock()
	defer d.h.m.mu.Unlock()
	for _, j := range d.h.m.jobs {
		for _, t := range j.tasks {
			if t.rec.State == store.TaskQueued {
				return true
			}
		}
	}
	return false
}

// tick runs the master's Tick and settles if it changed anything. The
// agents sync every ten ticks, so that the master does not find them
// silent; more often is not needed, as nothing changes for them between
// instants unless a tick's pass did something.
func (d *replayDriver) tick(t *testing.T) {
	if d.ticks++; d.ticks%10 == 0 {
		d.h.sync(d.agents...)
	}
	d.h.m.Tick(d.h.ctx)
	evs, err := d.h.st.Events(d.h.ctx, store.EventFilter{AfterSeq: d.seq})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) > 0 {
		d.seq = evs[len(evs)-1].Seq
		d.settle(t)
	}
}

// instant does what is due now and settles.
func (d *replayDriver) instant(t *testing.T) {
	now := d.now()
	limits := false
	for id, a := range d.att {
		switch {
		case a.exited:
		case a.asked:
			// Checkpointing: its work and time limit no longer count.
			if a.land <= now+1e-9 {
				for _, ag := range d.agents {
					ag.Exit(id, agent.OutcomePreempted, 0)
				}
			}
		case a.due <= now+1e-9 && a.due <= a.limit:
			for _, ag := range d.agents {
				ag.Exit(id, agent.OutcomeCompleted, 0)
			}
			a.exited = true
		case a.limit <= now+1e-9:
			limits = true
		}
	}
	d.h.sync(d.agents...)
	if limits {
		checkLimits(d.h)
	}
	for i, j := range d.c.jobs {
		if d.ids[i] != 0 && j.kill > 0 && !d.killed[i] && j.kill <= now+1e-9 {
			d.killed[i] = true
			if code := d.h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(d.ids[i], 10)+"/kill", nil, nil); code/100 != 2 {
				t.Fatalf("kill %s: %d", j.name, code)
			}
		}
	}
	for i, j := range d.c.jobs {
		for d.ids[i] != 0 && !d.killed[i] && d.changed[i] < len(j.changes) && j.changes[d.changed[i]].at <= now+1e-9 {
			ch := j.changes[d.changed[i]]
			d.changed[i]++
			var body []string
			if ch.priority > 0 {
				body = append(body, `"priority": `+strconv.Itoa(ch.priority))
			}
			if ch.weight > 0 {
				body = append(body, `"weight": `+strconv.FormatFloat(ch.weight, 'g', -1, 64))
			}
			path := "/api/v1/jobs/" + strconv.FormatInt(d.ids[i], 10)
			if code := d.h.do("PATCH", path, "{"+strings.Join(body, ", ")+"}", nil); code/100 != 2 && code != 409 {
				t.Fatalf("change %s: %d", j.name, code)
			}
		}
	}
	for i, j := range d.c.jobs {
		if d.ids[i] == 0 && j.submit <= now+1e-9 {
			d.ids[i] = d.h.submit(d.jobFile(j))
			d.byID[d.ids[i]] = i
			if d.c.eager {
				d.settle(t)
			}
		}
	}
	d.settle(t)
	evs, err := d.h.st.Events(d.h.ctx, store.EventFilter{AfterSeq: d.seq})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) > 0 {
		d.seq = evs[len(evs)-1].Seq
	}
}

func (d *replayDriver) jobFile(j rjob) string {
	var more strings.Builder
	if j.project != "" {
		fmt.Fprintf(&more, `, "project": %q`, j.project)
	}
	extra := j.extra
	if j.minSlots > 0 {
		extra += fmt.Sprintf(`, "min_slots": %d`, j.minSlots)
	}
	if j.tasks > 1 {
		vals := make([]string, j.tasks)
		for i := range vals {
			vals[i] = strconv.Itoa(i)
		}
		fmt.Fprintf(&more, `, "hyperparameters": {"x": {"type": "categorical", "vals": [%s]}}`, strings.Join(vals, ", "))
	}
	return fmt.Sprintf(`{"name": %q, "entrypoint": "python train.py", "resources": {"slots": %d%s}%s}`,
		j.name, j.slots, extra, more.String())
}

// pending says whether the master has an event that asks for a pass.
func (d *replayDriver) pending() bool {
	d.h.m.lock()
	defer d.h.m.mu.Unlock()
	return d.h.m.event
}

// settle syncs the agents (reports in, commands out, the agents' reports
// of what the commands did in again) and runs passes while an event asks
// for one, then notes the attempts that started and ended.
func (d *replayDriver) settle(t *testing.T) {
	for range 100 {
		d.h.sync(d.agents...)
		d.h.sync(d.agents...)
		if !d.pending() {
			d.track(t)
			return
		}
		d.h.step()
	}
	t.Fatal("the master did not settle")
}

// track notes new attempts (when they end) and ended ones (their work).
func (d *replayDriver) track(t *testing.T) {
	now := d.now()
	running := d.running()
	for id, a := range d.att {
		if _, ok := running[id]; ok || a.exited {
			continue
		}
		// Preempted or killed: the work up to the request counts (up to
		// now for a kill, or a checkpoint that lands at once).
		stop := now
		if a.asked {
			stop = a.stop
		}
		jid, _ := strconv.ParseInt(id.JobID, 10, 64)
		d.done[taskKey{jid, id.TaskIndex}] += (stop - a.start) * a.rate
		a.exited = true
	}
	for id, slots := range running {
		if _, ok := d.att[id]; ok {
			continue
		}
		jid, err := strconv.ParseInt(id.JobID, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		j := d.c.jobs[d.byID[jid]]
		a := &liveAttempt{start: now, rate: 1, limit: math.Inf(1)}
		work := j.run
		if j.minSlots > 0 {
			a.rate, work = float64(slots), j.run*float64(j.slots)
		}
		left := work - d.done[taskKey{jid, id.TaskIndex}]
		a.due = now + left/a.rate + j.lag
		if j.minSlots > 0 {
			a.due = now + math.Ceil(left/a.rate-1e-9) + j.lag // the simulator's whole seconds
		}
		if lim := d.timeLimit(jid); lim > 0 {
			a.limit = now + lim.Seconds()
		}
		d.att[id] = a
	}
	// Attempts that started in this settling may have been asked to
	// checkpoint in it too (a resize).
	d.preempts(now)
}

// running maps the attempts the agents run to the slots they hold.
func (d *replayDriver) running() map[agent.TaskID]int {
	out := map[agent.TaskID]int{}
	for _, ag := range d.agents {
		live := map[agent.TaskID]bool{}
		for _, id := range ag.Running() {
			live[id] = true
		}
		for _, sp := range ag.Started() {
			if live[sp.ID()] {
				out[sp.ID()] += len(sp.GPUs)
			}
		}
	}
	return out
}

// preempts notes the checkpoint requests the agents got since the last
// look, for the attempts that hold their checkpoints (c.checkpoint).
func (d *replayDriver) preempts(now float64) {
	for i, ag := range d.agents {
		cmds := ag.Commands()
		for _, c := range cmds[d.seen[i]:] {
			if a := d.att[c.Task]; a != nil && c.Type == api.CommandPreempt && !a.asked && d.c.checkpoint > 0 {
				a.asked, a.stop, a.land = true, now, now+d.c.checkpoint
			}
		}
		d.seen[i] = len(cmds)
	}
}
