package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// seed001Scenario is seed 001's seven-step priority walkthrough with
// preemption and backfill, as sim/seeds_test.go replays it.
const seed001Scenario = "seed001-priority-backfill.yaml"

// TestSeed001PriorityWalkthrough plays seed 001's priority example on a
// live cluster built from the scenario file (one pool, one agent per
// node), and checks after every step that the live master holds exactly
// the slots the simulator holds at that point of its replay of the same
// file. The steps are the scenario's instants where something happens
// from outside the scheduler: a submission (`allot submit`), a kill
// (`allot job kill`), or tasks ending, which the test triggers by
// releasing as many running tasks of each job as the simulator saw end
// then. Preempted tasks must checkpoint and resume.
func TestSeed001PriorityWalkthrough(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Load(filepath.Join(bins.repo, "testdata", "scenarios", seed001Scenario))
	if err != nil {
		t.Fatal(err)
	}
	steps, res := replayScenario(t, sc)
	t0 := time.Now()
	c := newCluster(t, liveCluster(t, sc))
	ids := map[string]int64{}
	for _, st := range steps {
		c.t.Logf("%s: want %v (%s)", st, st.want, time.Since(t0))
		for _, name := range slices.Sorted(maps.Keys(st.release)) {
			c.releaseRunning(ids[name], st.release[name])
		}
		for _, j := range st.submit {
			ids[j.Name] = c.submit(j.Name, c.scenarioJob(j).file(t))
		}
		for _, name := range st.kill {
			c.cliOK("job", "kill", strconv.FormatInt(ids[name], 10))
		}
		c.waitHoldings(st, ids)
	}
	checkSeedEnd(c, sc, res, ids)
}

// seedStep is one instant of the simulated run at which the live test
// must act, and the slots each job holds once the scheduler has settled
// after it (any preempted task having checkpointed).
type seedStep struct {
	at      int64
	release map[string]int // tasks of each job that end by themselves
	submit  []scenario.Job
	kill    []string
	want    map[string]int
}

func (s seedStep) String() string {
	var do []string
	for _, name := range slices.Sorted(maps.Keys(s.release)) {
		do = append(do, fmt.Sprintf("%d of %s end", s.release[name], name))
	}
	for _, j := range s.submit {
		do = append(do, "submit "+j.Name)
	}
	for _, name := range s.kill {
		do = append(do, "kill "+name)
	}
	return fmt.Sprintf("t=%dm: %s", s.at/60, strings.Join(do, ", "))
}

// replayScenario runs the simulator on the scenario and turns its run
// into the live test's steps. Within an instant the simulator ends tasks
// first, then submits, then kills, and the live test acts in the same
// order.
func replayScenario(t *testing.T, sc *scenario.Scenario) ([]seedStep, *sim.Result) {
	t.Helper()
	killed := scriptedKills(t, sc)
	ends, res := simulatedEnds(t, sc, killed)
	byAt := map[int64]*seedStep{}
	step := func(at int64) *seedStep {
		if byAt[at] == nil {
			byAt[at] = &seedStep{at: at, release: map[string]int{}}
		}
		return byAt[at]
	}
	for at, e := range ends {
		maps.Copy(step(at).release, e)
	}
	for _, j := range sc.Jobs {
		step(j.Submit).submit = append(step(j.Submit).submit, j)
	}
	for at, names := range killed {
		step(at).kill = slices.Sorted(maps.Keys(names))
	}
	var steps []seedStep
	for _, at := range slices.Sorted(maps.Keys(byAt)) {
		steps = append(steps, *byAt[at])
	}
	for i := range steps {
		until := res.End
		if i+1 < len(steps) {
			until = steps[i+1].at - 1
		}
		steps[i].want = timelineAt(res, until)
	}
	checkReplay(t, sc, res, ends)
	return steps, res
}

// scriptedKills are the scenario's kill events: the jobs killed at each
// instant.
func scriptedKills(t *testing.T, sc *scenario.Scenario) map[int64]map[string]bool {
	t.Helper()
	killed := map[int64]map[string]bool{}
	for _, e := range sc.Events {
		if e.Kind != scenario.EventKill {
			t.Fatalf("%s:%d: the live walkthrough plays kill events only, not %s", sc.Name, e.Line, e.Kind)
		}
		if killed[e.At] == nil {
			killed[e.At] = map[string]bool{}
		}
		killed[e.At][e.Job] = true
	}
	return killed
}

// simulatedEnds runs the simulator and returns, for each instant, how
// many tasks of each job ended by themselves then. The plans tell: a task
// that held slots after one pass, was not being preempted, and is gone at
// the next, ended (unless a scripted kill took its job).
func simulatedEnds(t *testing.T, sc *scenario.Scenario, killed map[int64]map[string]bool) (map[int64]map[string]int, *sim.Result) {
	t.Helper()
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	ends := map[int64]map[string]int{}
	addEnds := func(at int64, name string, n int) {
		if ends[at] == nil {
			ends[at] = map[string]int{}
		}
		ends[at][name] += n
	}
	var held map[string]int // running tasks per job after the last pass's plan
	inspect := func(now int64, snap *sched.Snapshot, plan *sched.Plan) {
		if len(plan.Moves)+len(plan.Resizes) > 0 {
			t.Errorf("t=%d: the simulator moves or resizes tasks, which the live walkthrough does not follow", now)
		}
		run := map[string]int{}
		for _, a := range snap.Allocs {
			if !a.Preempting {
				run[snap.Jobs[a.Job].ID]++
			}
		}
		for name, n := range held {
			if gone := n - run[name]; gone > 0 && !killed[now][name] {
				addEnds(now, name, gone)
			}
		}
		held = run
		for _, p := range plan.Preemptions {
			held[snap.Jobs[snap.Allocs[p.Alloc].Job].ID]--
		}
		for _, s := range plan.Starts {
			held[snap.Jobs[s.Job].ID]++
		}
	}
	res, err := sim.Run(in, sim.Options{Until: -1, Timeline: true, Inspect: inspect})
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range held {
		if n > 0 {
			addEnds(res.End, name, n)
		}
	}
	return ends, res
}

// checkReplay checks the derivation of the ends: every task of a job the
// simulator completed ended exactly once.
func checkReplay(t *testing.T, sc *scenario.Scenario, res *sim.Result, ends map[int64]map[string]int) {
	t.Helper()
	total := map[string]int{}
	for _, e := range ends {
		for name, n := range e {
			total[name] += n
		}
	}
	for _, j := range res.Jobs {
		if j.State != sim.StateCompleted {
			continue
		}
		for _, sj := range sc.Jobs {
			if sj.Name == j.Name && total[j.Name] != sj.Tasks {
				t.Fatalf("the replay ends %d tasks of %s, which has %d", total[j.Name], j.Name, sj.Tasks)
			}
		}
	}
}

// timelineAt is the slots each job holds at time at of the simulated run.
func timelineAt(res *sim.Result, at int64) map[string]int {
	out := map[string]int{}
	for _, e := range res.Timeline {
		if e.Time > at {
			break
		}
		out = map[string]int{}
		for name, n := range e.Slots {
			if n > 0 {
				out[name] = n
			}
		}
	}
	return out
}

// liveCluster builds a master configuration and agents from the
// scenario's pools and nodes.
func liveCluster(t *testing.T, sc *scenario.Scenario) clusterSpec {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "agent_timeout: 30s\ndefault_pool: %s\npools:\n", sc.Pools[0].Name)
	var spec clusterSpec
	for _, p := range sc.Pools {
		if p.Serial || p.Reservations != "" {
			t.Fatalf("%s:%d: pool %s has options the live test does not map", sc.Name, p.Line, p.Name)
		}
		fmt.Fprintf(&b, "  - {name: %s, policy: %s, preemption: %t, backfill: %t", p.Name, p.Policy, p.Preemption, p.Backfill)
		if p.Placement != "" {
			fmt.Fprintf(&b, ", placement: %s", p.Placement)
		}
		if p.Preemption || p.Backfill {
			// The tasks checkpoint at once; the grace only bounds a slow
			// one on a loaded machine.
			b.WriteString(", grace: 30s")
		}
		b.WriteString("}\n")
		for _, n := range p.Nodes {
			spec.agents = append(spec.agents, agentSpec{name: n.Name, pool: p.Name, gpus: n.Slots, gpuType: n.GPU})
		}
	}
	spec.config = b.String()
	return spec
}

// scenarioJob is the job file of a scenario job: holdScript tasks with
// the job's kind, pool, slots, priority and trials.
func (c *cluster) scenarioJob(j scenario.Job) jobSpec {
	c.t.Helper()
	if j.TimeLimit != 0 || (j.Weight != 0 && j.Weight != 1) {
		c.t.Fatalf("job %s: the live test does not map time limits and weights", j.Name)
	}
	s := c.holdJob(j.Name, j.Slots)
	s.Kind, s.Pool = j.Kind, j.Pool
	s.Resources.Priority = j.Priority
	s.Resources.Preemptible = &j.Preemptible
	if j.Tasks > 1 {
		s.trials(j.Tasks, j.MaxConcurrent)
	}
	return s
}

// releaseRunning lets n running tasks of a job finish, those whose
// attempts started first (as the simulator's tasks of equal length end
// in the order they started), and waits until they have completed.
func (c *cluster) releaseRunning(id int64, n int) {
	c.t.Helper()
	var j api.Job
	c.poll(cliTimeout, fmt.Sprintf("job %d", id), func(ctx context.Context) (bool, string) {
		var err error
		j, err = c.api.Job(ctx, id)
		return err == nil, fmt.Sprint(err)
	})
	var running []api.Task
	for _, task := range j.TaskList {
		if task.State == "running" {
			running = append(running, task)
		}
	}
	if len(running) < n {
		c.t.Fatalf("job %d should end %d running tasks, but runs %d: %s", id, n, len(running), describeJob(j))
	}
	slices.SortStableFunc(running, func(a, b api.Task) int {
		return a.Attempts[len(a.Attempts)-1].StartedAt.Compare(b.Attempts[len(b.Attempts)-1].StartedAt)
	})
	for _, task := range running[:n] {
		c.release(id, task.Index)
	}
	for _, task := range running[:n] {
		c.waitJob(id, fmt.Sprintf("task %d to complete", task.Index), func(j api.Job) bool {
			return j.TaskList[task.Index].State == "completed"
		})
	}
}

// waitHoldings waits until the live jobs hold the step's slots with
// every task that holds slots running (none starting or checkpointing),
// then checks the same through `allot jobs` and `allot job show`.
func (c *cluster) waitHoldings(st seedStep, ids map[string]int64) {
	c.t.Helper()
	c.poll(waitTimeout, fmt.Sprintf("after %s: holdings %v", st, st.want), func(ctx context.Context) (bool, string) {
		jobs, err := c.api.Jobs(ctx, client.JobFilter{})
		if err != nil {
			return false, err.Error()
		}
		got, settled := map[string]int{}, true
		for _, j := range jobs {
			if j.Running == 0 {
				continue
			}
			got[j.Name] += j.Running * j.Slots
			full, err := c.api.Job(ctx, j.ID)
			if err != nil {
				return false, err.Error()
			}
			settled = settled && countTasks(full, "running") == j.Running
		}
		return settled && maps.Equal(got, st.want), fmt.Sprintf("holdings %v, settled %t", got, settled)
	})
	var jobs []api.Job
	c.cliJSON(&jobs, "jobs")
	got := map[string]int{}
	for _, j := range jobs {
		if j.Running > 0 {
			got[j.Name] += j.Running * j.Slots
			if full := c.show(j.ID); countTasks(full, "running") != j.Running {
				c.t.Errorf("after %s: allot job show %d: %s", st, j.ID, describeJob(full))
			}
		}
	}
	if !maps.Equal(got, st.want) {
		c.t.Fatalf("after %s: allot jobs shows holdings %v, the simulator %v", st, got, st.want)
	}
}

// checkSeedEnd compares how each job ended with the simulator's result,
// and checks that every preemption was a checkpoint followed by a
// resumed attempt.
func checkSeedEnd(c *cluster, sc *scenario.Scenario, res *sim.Result, ids map[string]int64) {
	t := c.t
	for _, want := range res.Jobs {
		id := ids[want.Name]
		j := c.waitEnded(id)
		if j.State != string(want.State) {
			t.Errorf("%s ended %s, the simulator's %s", want.Name, j.State, want.State)
		}
		j = c.show(id)
		preemptions := 0
		for _, task := range j.TaskList {
			var checkpoints []string
			for k, a := range task.Attempts {
				switch {
				case a.EndState == "preempted":
					preemptions++
					checkpoints = append(checkpoints, strconv.Itoa(a.Number))
					c.checkHeld(id, task.Index, a.Number, k, "checkpoint")
					if k == len(task.Attempts)-1 {
						t.Errorf("%s task %d was preempted but did not run again", want.Name, task.Index)
					}
				case want.State == sim.StateCompleted:
					if a.EndState != "completed" || k != len(task.Attempts)-1 {
						t.Errorf("%s task %d attempt %d ended %q: %s", want.Name, task.Index, a.Number, a.EndState, describeJob(j))
					}
					c.checkHeld(id, task.Index, a.Number, k, "released")
				case a.EndState != "killed":
					t.Errorf("%s task %d attempt %d ended %q, want killed", want.Name, task.Index, a.Number, a.EndState)
				}
			}
			if len(checkpoints) > 0 {
				// Each preempted attempt saved its checkpoint where the
				// next one found it.
				b, err := os.ReadFile(filepath.Join(task.CheckpointDir, "checkpoints"))
				if got := strings.Fields(string(b)); err != nil || !slices.Equal(got, checkpoints) {
					t.Errorf("%s task %d: checkpoints of attempts %q (%v), want %q", want.Name, task.Index, got, err, checkpoints)
				}
			}
		}
		if preemptions != want.Preemptions {
			t.Errorf("%s: %d preempted attempts, the simulator preempted it %d times", want.Name, preemptions, want.Preemptions)
		}
	}
	if len(res.Jobs) != len(sc.Jobs) {
		t.Errorf("the simulator reports %d jobs of the scenario's %d", len(res.Jobs), len(sc.Jobs))
	}
}
