package lifecycle_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// runStep plays the Step commands of a script (testdata/tasks/step.txt):
//
//	cluster nodes=N slots=S policy=P [preemption] [conservative] [confirm] [noshortcuts] [grace=G]
//	submit tasks=N work=W slots=S at=T [priority=P] [preemptible] [limit=S] [every=S] [retries=N] [fail] [min=M]
//	                                     (min: elastic down to M slots, W in slot-seconds)
//	wake                                 a tick (EventTick): the instant is not quiet
//	step at=T                            settle at T: each applied effect, then the passes
//	observe ended|landed|leftlanded t=T ver=V [at=T]  an outcome for version V of task T
//	observe kill j=J [at=T]              job J is killed, its tasks freed
//	observe priority j=J priority=P [preemptible]
//	observe weight j=J weight=W
//	observe stopped t=T ver=V [at=T]     task T is stopped from outside (a searcher)
//	observe startfailed t=T ver=V [at=T] the start of version V of task T failed
//	observe startlost t=T ver=V [at=T]   the start of version V of task T was never answered
//	unanswered t=T                       no agent answers task T's start (Task.Unanswered), as the simulator's start_lost sets
//	observe tick                         a wake-up
//	observe down n=N [at=T]              node N is lost: the records on it, their jobs
//	observe up n=N                       node N is back
//	observe graceover n=N [at=T]         the grace of node N's loss is over
//	nodes                                each node's slots in the snapshot Step reads
//	snapallocs at=T                      the allocations of the snapshot a pass at T reads
//
// The cluster (a fresh one) is one pool of N nodes of S slots each under
// policy P, with a lost-node grace of G seconds (LostNodeGrace).
// Step prints each effect as its Applier hears of it, with the facts it
// carries, then how many passes it ran and the slots in use.
func (p *player) runStep(cmd string, args args) ([]string, error) {
	switch cmd {
	case "cluster":
		return nil, p.cluster(args)
	case "submit":
		sh := lifecycle.Shape{Limit: args.int("limit"), Every: args.int("every"), Elastic: args.int("min") > 0}
		tasks := int(args.int("tasks"))
		id := fmt.Sprintf("j%d", p.c.NextJob())
		p.seq++
		ji := submit(&p.c, args.int("at"), lifecycle.Submission{Tasks: tasks, Fresh: args.int("work"), Shape: sh,
			MaxRetries: int(args.int("retries")), FailOnPreempt: args.flag("fail"), Project: -1, Account: -1},
			sched.Job{ID: id, Submit: args.int("at"), Seq: p.seq, Priority: int(args.int("priority")),
				Preemptible: args.flag("preemptible"), Slots: int(args.int("slots")), MinSlots: int(args.int("min")),
				MaxRunning: tasks, Weight: 1,
				TimeLimit: args.int("limit"), Project: -1, Account: -1})
		return []string{p.describeJob(ji)}, args.err
	case "wake":
		p.c.Observe(0, lifecycle.Event{Kind: lifecycle.EventTick})
		return nil, args.err
	case "unanswered":
		p.c.Tasks.At(int32(args.int("t"))).Unanswered = true
		return nil, args.err
	case "step":
		var ap stepPrinter
		ap.p = p
		r, err := p.c.Step(args.int("at"), &ap)
		p.allocTask = nil // its passes' snapshots are Step's own
		if err != nil {
			return nil, err
		}
		return append(ap.out, fmt.Sprintf("passes=%d in_use=%d", r.Passes, p.c.InUse())), args.err
	case "observe":
		return p.observe(args)
	case "nodes":
		var out []string
		for _, n := range p.c.Snap.Nodes {
			out = append(out, fmt.Sprintf("%s slots=%d", n.Name, n.Slots))
		}
		return out, args.err
	case "snapallocs":
		var out []string
		p.c.Snapshot(&p.c.Snap, args.int("at"))
		p.noteAllocs(&p.c.Snap)
		for _, a := range p.c.Snap.Allocs {
			out = append(out, fmt.Sprintf("alloc job=%d nodes=%s", a.Job, nodesString(a.Nodes)))
		}
		return out, args.err
	}
	return nil, fmt.Errorf("unknown command %q", cmd)
}

// observe reports an event at at (Cluster.Observe) and prints what it
// did, and the task (for an outcome) and its job.
func (p *player) observe(args args) ([]string, error) {
	e := lifecycle.Event{Task: int32(args.int("t")), Ver: uint32(args.int("ver")), Job: int32(args.int("j"))}
	switch {
	case args.flag("ended"):
		e.Kind = lifecycle.EventEnded
	case args.flag("landed"):
		e.Kind = lifecycle.EventLanded
	case args.flag("leftlanded"):
		e.Kind = lifecycle.EventLeftLanded
	case args.flag("stopped"):
		e.Kind = lifecycle.EventStopped
	case args.flag("startfailed"):
		e.Kind = lifecycle.EventStartFailed
	case args.flag("startlost"):
		e.Kind = lifecycle.EventStartLost
	case args.flag("attemptlost"):
		e.Kind = lifecycle.EventAttemptLost
	case args.flag("tick"):
		e.Kind = lifecycle.EventTick
	case args.flag("down"), args.flag("up"), args.flag("drain"), args.flag("resume"), args.flag("graceover"):
		e.Kind, e.Node = lifecycle.EventNodeDown, int32(args.int("n"))
		switch {
		case args.flag("up"):
			e.Kind = lifecycle.EventNodeUp
		case args.flag("drain"):
			e.Kind = lifecycle.EventNodeDrain
		case args.flag("resume"):
			e.Kind = lifecycle.EventNodeResume
		}
		if args.flag("graceover") {
			e.Kind = lifecycle.EventGraceOver
		}
		return p.nodeEvent(args, e)
	case args.flag("reshape"):
		e.Kind, e.Node = lifecycle.EventNodeReshape, int32(args.int("n"))
		e.Shape = &sched.Node{Slots: int(args.int("slots")), GPU: args.kv["gpu"]}
		if nd := e.Node; nd >= 0 && int(nd) < len(p.c.Snap.Nodes) {
			// Where it stays, as the drivers give it (the script's
			// nodes have no zero-slot limit).
			e.Shape.Pool = p.c.Snap.Nodes[nd].Pool
		}
		return p.nodeEvent(args, e)
	case args.flag("killended"):
		e.Kind = lifecycle.EventKillEnded
	case args.flag("kill"):
		e.Kind = lifecycle.EventKill
	case args.kv["priority"] != "" && args.kv["priority"] != "true":
		e.Kind, e.Priority, e.Preemptible = lifecycle.EventPriority, int(args.int("priority")), args.flag("preemptible")
	case args.kv["weight"] != "":
		e.Kind, e.Weight = lifecycle.EventWeight, float64(args.int("weight"))
	default:
		return nil, fmt.Errorf("observe: want ended, landed, leftlanded, stopped, startfailed, startlost, attemptlost, tick, down, up, drain, resume, graceover, reshape, kill, killended, priority=P or weight=W")
	}
	o := p.c.Observe(args.int("at"), e)
	out := []string{fmt.Sprintf("applied=%t job=%d slots=%d timed_out=%t drained=%t over=%t", o.Applied, o.Job, o.Slots, o.TimedOut, o.Drained, o.Over)}
	for _, f := range o.Freed {
		out = append(out, fmt.Sprintf("freed t%d slots=%d", f.Task, f.Slots))
	}
	for _, k := range o.Killing {
		out = append(out, fmt.Sprintf("killing t%d v%d from=%s", k.Task, p.c.Tasks.At(k.Task).Ver, k.From))
	}
	if o.LostWork > 0 {
		out = append(out, fmt.Sprintf("lost_work=%d", o.LostWork))
	}
	switch {
	case !o.Applied || e.Kind == lifecycle.EventTick:
		return out, args.err
	case e.Kind == lifecycle.EventKill:
	case e.Kind == lifecycle.EventPriority || e.Kind == lifecycle.EventWeight:
		en := p.c.Roster.Entry(e.Job)
		out = append(out, fmt.Sprintf("entry priority=%d preemptible=%t weight=%g", en.Priority, en.Preemptible, en.Weight))
	default:
		return p.after(e.Task, out), args.err
	}
	return append(out, p.describeJob(e.Job)), args.err
}

// nodeEvent reports a node going down, coming back, drained or resumed
// at at, and prints
// what it did: each record freed (how it held its slots, how it ended,
// the work lost), then each job it touched, in order.
func (p *player) nodeEvent(args args, e lifecycle.Event) ([]string, error) {
	o := p.c.Observe(args.int("at"), e)
	out := []string{fmt.Sprintf("applied=%t slots=%d", o.Applied, o.Slots)}
	var jobs []int32
	for _, f := range o.Freed {
		t := p.c.Tasks.At(f.Task)
		out = append(out, fmt.Sprintf("freed t%d job=%d slots=%d %s->%s lost_work=%d work=%d",
			f.Task, t.Job, f.Slots, f.From, t.State, f.LostWork, t.Work))
		if !slices.Contains(jobs, t.Job) {
			jobs = append(jobs, t.Job)
		}
	}
	for _, ji := range o.Ended {
		out = append(out, fmt.Sprintf("ended j%d", ji))
	}
	for _, li := range o.Leaving {
		t := p.c.Tasks.At(li)
		out = append(out, fmt.Sprintf("leaving t%d v%d job=%d nodes=%s asked=%d work=%d", li, t.Ver, t.Job, nodesString(t.Nodes), t.Asked, t.Work))
	}
	for _, ji := range jobs {
		out = append(out, p.describeJob(ji))
	}
	return out, args.err
}

// cluster starts a fresh Cluster with the snapshot's one pool and its
// nodes, and Configures it.
func (p *player) cluster(args args) error {
	p.c, p.seq = lifecycle.Cluster{}, 0
	pool := sched.Pool{Name: "p", Policy: sched.Policy(args.kv["policy"]), Preemption: args.flag("preemption")}
	if args.flag("conservative") {
		pool.Reservations = sched.ReserveConservative
	}
	p.c.Snap.Pools = []sched.Pool{pool}
	for i := range args.int("nodes") {
		p.c.Snap.Nodes = append(p.c.Snap.Nodes, sched.Node{Name: fmt.Sprintf("n%d", i), Slots: int(args.int("slots"))})
	}
	p.c.LostNodeGrace = time.Duration(args.int("grace")) * time.Second
	p.c.Configure(lifecycle.StepOptions{Confirm: args.flag("confirm"), NoShortcuts: args.flag("noshortcuts")})
	return args.err
}

// stepPrinter is a script's Applier: it prints each effect as applied.
type stepPrinter struct {
	p   *player
	out []string
}

func (a *stepPrinter) Applied(now int64, e *lifecycle.Effect) {
	s := fmt.Sprintf("%s t%d nodes=%s slots=%d", e.Op, e.Task, nodesString(e.Nodes), e.Slots)
	switch e.Op {
	case lifecycle.OpStart:
		s += fmt.Sprintf(" held_before=%d", e.HeldBefore)
		if e.Backfill {
			s += " backfill"
		}
		if e.First {
			s += fmt.Sprintf(" first_priority=%g", e.Priority)
		}
	case lifecycle.OpPreempt:
		s += fmt.Sprintf(" lost_work=%d", e.LostWork)
	case lifecycle.OpMove, lifecycle.OpResize:
		s += fmt.Sprintf(" lost_work=%d drain=t%d", e.LostWork, e.Replaced.Drain)
	}
	t := a.p.c.Tasks.At(e.Task)
	a.out = append(a.out, s, "  "+a.p.describeBy(e.Task, a.p.c.Jobs[t.Job].Shape))
}
