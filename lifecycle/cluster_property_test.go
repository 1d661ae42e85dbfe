package lifecycle_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestClusterInvariants drives a Cluster with random transitions, as a
// driver may call them, and checks after each that the books balance:
// every live job's tasks are waiting, running or done; what it holds is
// what its live task records hold; its snapshot entry waits as it does;
// and a snapshot shows exactly the live task records, each under its
// job's entry. Nodes go down and come back at random (the random
// placements pay no heed: a down node's loss frees whatever is on it).
func TestClusterInvariants(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 13))
		var c lifecycle.Cluster
		graph := watchGraph(&c)
		for i := range 8 {
			c.Snap.Nodes = append(c.Snap.Nodes, sched.Node{Name: fmt.Sprintf("n%d", i), Slots: 64})
		}
		var snap sched.Snapshot
		now := int64(0)
		for step := range 3000 {
			now += int64(rng.IntN(5))
			op := randomOp(rng, &c, now)
			if rng.IntN(10) == 0 {
				c.Snapshot(&snap, now)
				if err := checkSnapshot(&c, &snap); err != nil {
					t.Fatalf("seed %d step %d after %s: %v", seed, step, op, err)
				}
			}
			if err := checkBooks(&c); err != nil {
				t.Fatalf("seed %d step %d after %s: %v", seed, step, op, err)
			}
			if graph.err != nil {
				t.Fatalf("seed %d step %d after %s: %v", seed, step, op, graph.err)
			}
			if err := checkCounts(&c, graph); err != nil {
				t.Fatalf("seed %d step %d after %s: %v", seed, step, op, err)
			}
		}
		// Every way a record here lets go of its slots, and a relaunch.
		if err := graph.check("queued → running", "running → preempting", "preempting → preempted", "preempted → running",
			"running → completed", "running → killed", "running → failed", "preempting → killed", "preempting → failed",
			"running → killing", "killing → killed"); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
	}
}

// randomOp applies one random transition that the state allows, ends
// jobs whose tasks have all ended, and names what it did.
func randomOp(rng *rand.Rand, c *lifecycle.Cluster, now int64) string {
	var live []int32 // live task records
	for _, ti := range c.Tasks.Running() {
		if c.Tasks.At(ti).State.Active() {
			live = append(live, ti)
		}
	}
	op := rng.IntN(8)
	var ti int32 = -1
	if len(live) > 0 {
		ti = live[rng.IntN(len(live))]
	}
	var t *lifecycle.Task
	if ti >= 0 {
		t = c.Tasks.At(ti)
	}
	var name string
	switch {
	case op == 0 || len(c.Jobs) == 0:
		sh := lifecycle.Shape{Elastic: rng.IntN(2) == 0, Every: int64(rng.IntN(3) * 10), Limit: int64(rng.IntN(2) * 50)}
		ji := submit(c, now, lifecycle.Submission{Tasks: rng.IntN(4), Fresh: int64(1 + rng.IntN(100)), Shape: sh,
			FailOnPreempt: rng.IntN(4) == 0, MaxRetries: rng.IntN(3), Project: -1, Account: -1},
			sched.Job{Preemptible: rng.IntN(2) == 0}) // a preemptible gang's parts up are held at a loss (Left)
		name = fmt.Sprintf("submit j%d", ji)
		finishIfOver(c, ji, now)
	case op == 1:
		ji := int32(rng.IntN(len(c.Jobs)))
		if j := &c.Jobs[ji]; j.State.Terminal() || j.Waiting == 0 {
			return "nothing"
		}
		c.Launch(ji, randomNodes(rng), rng.IntN(2) == 0, now)
		name = fmt.Sprintf("launch j%d", ji)
	case op == 6:
		return randomKill(c, int32(rng.IntN(len(c.Jobs))), now)
	case op == 7:
		n := int32(rng.IntN(len(c.Snap.Nodes)))
		o := c.Observe(now, lifecycle.Event{Kind: lifecycle.EventNodeDown, Node: n})
		if !o.Applied {
			c.Observe(now, lifecycle.Event{Kind: lifecycle.EventNodeUp, Node: n})
			return fmt.Sprintf("n%d up", n)
		}
		name = fmt.Sprintf("n%d down (%d records, %d slots, jobs %v ended)", n, len(o.Freed), o.Slots, o.Ended)
	case t != nil && t.Left:
		// A lost gang's parts on nodes up land on their own (leaving.go).
		ji := t.Job
		c.Observe(now, lifecycle.Event{Kind: lifecycle.EventLeftLanded, Task: ti, Ver: t.Ver})
		name = fmt.Sprintf("left landed t%d", ti)
		finishIfOver(c, ji, now)
	case t == nil || t.Moving:
		return "nothing" // a draining placement lands with its task
	case t.State == lifecycle.TaskKilling:
		// The driver reports a kill's end, at once or later.
		o := c.Observe(now, lifecycle.Event{Kind: lifecycle.EventKillEnded, Task: ti, Ver: t.Ver})
		name = fmt.Sprintf("kill ended t%d (%d slots, over %t)", ti, o.Slots, o.Over)
	case t.Replacing() && op != 4:
		// A re-placed task may only land, or end (live, its work may
		// end while it checkpoints); a plan does not name it
		// (lifecycle.Replannable).
		c.Landed(ti, now)
		name = fmt.Sprintf("landed t%d (re-placed)", ti)
	case t.State == lifecycle.TaskPreempting:
		ji := t.Job
		c.Checkpointed(ti)
		name = fmt.Sprintf("landed t%d", ti)
		finishIfOver(c, ji, now)
	case op == 2:
		c.Preempt(ti, now)
		name = fmt.Sprintf("preempt t%d", ti)
	case op == 3:
		r := lifecycle.Replace(rng.IntN(2))
		c.Replace(ti, randomNodes(rng), r, r == lifecycle.Move, now)
		name = fmt.Sprintf("replace t%d", ti)
	default:
		ji := t.Job
		c.Exit(ti, rng.IntN(3) == 0)
		name = fmt.Sprintf("exit t%d", ti)
		finishIfOver(c, ji, now)
	}
	return name
}

// randomKill kills job ji, if it is live, as a driver does (EventKill),
// and names what it did. Its tasks stay killing, holding their slots,
// until their kill's end, which a later op sends (randomOp).
func randomKill(c *lifecycle.Cluster, ji int32, now int64) string {
	if c.Jobs[ji].State.Terminal() {
		return "nothing"
	}
	o := c.Observe(now, lifecycle.Event{Kind: lifecycle.EventKill, Job: ji})
	killing := 0
	for _, k := range o.Killing {
		killing += sched.Slots(c.Tasks.At(k.Task).Nodes)
	}
	if c.Jobs[ji].Held != killing || c.Jobs[ji].Waiting != 0 {
		return fmt.Sprintf("kill j%d left %d held (%d killing), %d waiting", ji, c.Jobs[ji].Held, killing, c.Jobs[ji].Waiting)
	}
	return fmt.Sprintf("kill j%d (%d slots, %d killing)", ji, o.Slots, len(o.Killing))
}

// submit submits a job as a driver does (EventSubmit) and returns its
// record.
func submit(c *lifecycle.Cluster, now int64, sub lifecycle.Submission, entry sched.Job) int32 {
	return c.Observe(now, lifecycle.Event{Kind: lifecycle.EventSubmit, Submission: sub, Entry: &entry}).Job
}

func finishIfOver(c *lifecycle.Cluster, ji int32, now int64) {
	if st, over := c.Jobs[ji].Over(); over {
		c.Finish(ji, st, now)
	}
}

func randomNodes(rng *rand.Rand) []sched.NodeSlots {
	ns := []sched.NodeSlots{{Node: int32(rng.IntN(4)), Slots: int32(1 + rng.IntN(3))}}
	if rng.IntN(3) == 0 {
		ns = append(ns, sched.NodeSlots{Node: int32(4 + rng.IntN(4)), Slots: int32(1 + rng.IntN(2))})
	}
	return ns
}

func checkBooks(c *lifecycle.Cluster) error {
	held := make([]int, len(c.Jobs))
	running := make([]int, len(c.Jobs))
	moving := make([]int, len(c.Jobs))
	left := make([]int, len(c.Jobs))
	drains := map[int32]bool{}
	for _, ti := range c.Tasks.Running() {
		t := c.Tasks.At(ti)
		switch {
		case !t.State.Valid():
			return fmt.Errorf("t%d in unknown state %q", ti, t.State)
		case !t.State.Active():
			continue
		case t.State != lifecycle.TaskRunning && t.State != lifecycle.TaskPreempting && t.State != lifecycle.TaskKilling:
			return fmt.Errorf("t%d holds slots %s: a record is running, preempting or killing", ti, t.State)
		case t.Moving && t.State != lifecycle.TaskPreempting:
			return fmt.Errorf("t%d drains a move %s, not preempting", ti, t.State)
		}
		if c.Jobs[t.Job].State.Terminal() && t.State != lifecycle.TaskKilling {
			return fmt.Errorf("t%d holds slots %s for ended job j%d: only a killing one may", ti, t.State, t.Job)
		}
		if t.Replacing() && t.Drain >= 0 {
			if d := c.Tasks.At(t.Drain); !d.State.Active() || !d.Moving || d.Job != t.Job || d.ID != t.ID {
				return fmt.Errorf("t%d is re-placed, draining t%d, which is not its draining part", ti, t.Drain)
			}
			drains[t.Drain] = true
		}
		held[t.Job] += sched.Slots(t.Nodes)
		if t.Left {
			left[t.Job]++ // its task waits for it (leaving.go)
		}
		if t.Moving {
			moving[t.Job]++
		} else {
			running[t.Job]++
		}
	}
	for _, ti := range c.Tasks.Running() {
		if t := c.Tasks.At(ti); t.State.Active() && t.Moving && !t.Left && !drains[ti] {
			return fmt.Errorf("t%d drains for no re-placed task", ti)
		}
	}
	total := 0
	for _, h := range held {
		total += h
	}
	if total != c.InUse() {
		return fmt.Errorf("tasks hold %d slots, InUse says %d", total, c.InUse())
	}
	for ji := range c.Jobs {
		j := &c.Jobs[ji]
		if j.State.Terminal() {
			// Its killing tasks hold their slots until their kill's end.
			if j.Held != held[ji] || j.Active != running[ji] || j.Moving != 0 {
				return fmt.Errorf("ended j%d holds %d slots, %d running, %d moving; its killing tasks hold %d, %d",
					ji, j.Held, j.Active, j.Moving, held[ji], running[ji])
			}
			continue
		}
		switch {
		case j.Waiting+j.Active+j.Ended+left[ji] != j.Tasks:
			return fmt.Errorf("j%d: waiting %d + running %d + ended %d + left %d != %d tasks",
				ji, j.Waiting, j.Active, j.Ended, left[ji], j.Tasks)
		case j.Held != held[ji] || j.Active != running[ji] || j.Moving != moving[ji]:
			return fmt.Errorf("j%d: holds %d, running %d, moving %d; its tasks hold %d, %d, %d",
				ji, j.Held, j.Active, j.Moving, held[ji], running[ji], moving[ji])
		case len(j.Resume) > j.Waiting:
			return fmt.Errorf("j%d: %d resumed tasks but %d waiting", ji, len(j.Resume), j.Waiting)
		case c.Roster.Entry(int32(ji)).Waiting != j.Waiting:
			return fmt.Errorf("j%d: entry waits %d, job %d", ji, c.Roster.Entry(int32(ji)).Waiting, j.Waiting)
		}
	}
	return nil
}

func checkSnapshot(c *lifecycle.Cluster, snap *sched.Snapshot) error {
	var live []int32 // the tasks with an allocation
	for _, ti := range c.Tasks.Running() {
		t := c.Tasks.At(ti)
		if !t.State.Active() {
			return fmt.Errorf("retired t%d still listed after the snapshot's sweep", ti)
		}
		// A placement reserved on nodes lost since has no allocation
		// there (the master's snapshot leaves lost nodes out).
		if !t.Replacing() || slices.ContainsFunc(t.Nodes, func(x sched.NodeSlots) bool { return c.Snap.Nodes[x.Node].Slots > 0 }) {
			live = append(live, ti)
		}
	}
	if len(snap.Allocs) != len(live) {
		return fmt.Errorf("%d allocations for %d live tasks", len(snap.Allocs), len(live))
	}
	list := c.Roster.List()
	if len(list) != len(snap.Jobs) {
		return fmt.Errorf("%d roster jobs, %d snapshot jobs", len(list), len(snap.Jobs))
	}
	for i, ji := range list {
		if !c.Jobs[ji].Live(c.Jobs[ji].JobTasks) {
			return fmt.Errorf("ended j%d, none of its tasks killing, on the roster after compaction", ji)
		}
		if snap.Jobs[i].Waiting != c.Jobs[ji].Waiting {
			return fmt.Errorf("snapshot job %d (j%d) waits %d, job %d", i, ji, snap.Jobs[i].Waiting, c.Jobs[ji].Waiting)
		}
	}
	for i, a := range snap.Allocs {
		ti := live[i]
		if list[a.Job] != c.Tasks.At(ti).Job {
			return fmt.Errorf("allocation %d under snapshot job %d (j%d), its task is j%d's", i, a.Job, list[a.Job], c.Tasks.At(ti).Job)
		}
	}
	return nil
}
