package lifecycle_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/tasks")

// TestTaskScripts plays the scripts in testdata/tasks against a Tasks
// table: each command changes the table or looks at it, and what it
// prints must match the block after its "----" line. With -update the
// blocks are rewritten from what the commands print, for review in the
// diff. The format, in the spirit of etcd raft's data-driven tests:
//
//	# comment
//	command key=value ... flag ...
//	----
//	expected output, up to a blank line
//
// Placements are written node x slots, joined by +: 0x2+3x1.
func TestTaskScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "tasks", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, diffs := playScript(t, string(data))
			if *update {
				if err := os.WriteFile(f, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, d := range diffs {
				t.Error(d)
			}
		})
	}
}

// playScript runs a script and returns it with every command's output
// rewritten, and a message for each output that differs from the script.
func playScript(t *testing.T, script string) (string, []string) {
	var out strings.Builder
	var diffs []string
	p := &player{}
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		var want []string
		if i+1 < len(lines) && lines[i+1] == "----" {
			i += 2
			for ; i < len(lines) && lines[i] != ""; i++ {
				want = append(want, lines[i])
			}
		} else if i+1 < len(lines) && lines[i+1] == "" {
			i++ // the blank line that ends the command's block
		}
		got, err := p.run(line)
		if err != nil {
			t.Fatalf("line %d: %s: %v", i+1, line, err)
		}
		fmt.Fprintf(&out, "%s\n----\n", line)
		for _, g := range got {
			out.WriteString(g + "\n")
		}
		out.WriteString("\n")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			diffs = append(diffs, fmt.Sprintf("%s\ngot:\n%s\nwant:\n%s", line, strings.Join(got, "\n"), strings.Join(want, "\n")))
		}
	}
	return strings.TrimRight(out.String(), "\n") + "\n", diffs
}

// player is the state a script acts on.
type player struct {
	c     lifecycle.Cluster
	shape lifecycle.Shape
	snap  sched.Snapshot
	seq   int64 // the last submitted job's Seq (submit)
	// allocTask is the task record of each allocation of the last
	// snapshot (snapshot), nil when it cannot be told.
	allocTask []int32
}

func (p *player) run(line string) ([]string, error) {
	f := strings.Fields(line)
	args, err := parseArgs(f[1:])
	if err != nil {
		return nil, err
	}
	switch f[0] {
	case "shape":
		p.shape = lifecycle.Shape{Elastic: args.flag("elastic"), Every: args.int("every"), Limit: args.int("limit")}
		return nil, args.err
	case "launch":
		ti := p.c.Tasks.Launch(int32(args.int("job")), int32(args.int("id")), int32(args.int("retries")),
			args.int("work"), args.nodes("nodes"), args.flag("backfill"), args.int("at"))
		return []string{p.describe(ti)}, args.err
	case "preempt":
		ti := int32(args.int("t"))
		lost := p.c.Tasks.Preempt(ti, args.int("at"), p.shape)
		return []string{fmt.Sprintf("lost=%d", lost), p.describe(ti)}, args.err
	case "move", "resize":
		return p.replace(f[0], args)
	case "resume":
		ti := int32(args.int("t"))
		drain := p.c.Tasks.Resume(ti, args.int("at"))
		return []string{fmt.Sprintf("drain=t%d", drain), p.describe(ti)}, args.err
	case "retire":
		ti := int32(args.int("t"))
		st := lifecycle.TaskState(args.kv["state"])
		if !st.Valid() || st.Active() {
			return nil, fmt.Errorf("retire: state=%q is not a state a task lets go of its slots in", st)
		}
		p.c.Tasks.Retire(ti, st)
		return []string{p.describe(ti)}, args.err
	case "current":
		return []string{strconv.FormatBool(p.c.Tasks.Current(int32(args.int("t")), uint32(args.int("ver"))))}, args.err
	case "sweep":
		return []string{fmt.Sprint("running ", p.c.Tasks.Sweep())}, args.err
	case "allocs":
		return p.allocs(args.int("at")), args.err
	case "decide":
		return p.decide(args)
	case "job", "start", "stop", "exit", "landed", "relocate", "snapshot":
		return p.runJob(f[0], args)
	case "cluster", "submit", "wake", "unanswered", "step", "observe", "nodes", "snapallocs":
		return p.runStep(f[0], args)
	}
	return nil, fmt.Errorf("unknown command %q", f[0])
}

func (p *player) replace(op string, args args) ([]string, error) {
	ti := int32(args.int("t"))
	r, e := lifecycle.Move, lifecycle.Effect{Op: lifecycle.OpMove, For: -1}
	if op == "resize" {
		r, e.Op = lifecycle.Resize, lifecycle.OpResize
	}
	nodes := args.nodes("nodes")
	res := p.c.Tasks.Replace(ti, r, nodes, args.int("at"), p.shape)
	out := []string{fmt.Sprintf("lost=%d lost_work=%d delta=%d budget=%t", res.Lost, res.LostWork, res.Delta, e.ChargesBudget()),
		p.describe(ti)}
	if res.Drain >= 0 {
		out = append(out, p.describe(res.Drain))
	}
	return out, args.err
}

// allocs prints the snapshot allocations of the running tasks, their
// jobs numbered as the task records number them.
func (p *player) allocs(now int64) []string {
	var out []string
	for _, ti := range p.c.Tasks.Sweep() {
		t := p.c.Tasks.At(ti)
		a := t.Alloc(int(t.Job), now, p.shape.Every)
		out = append(out, fmt.Sprintf("alloc job=%d nodes=%s start=%d checkpoint=%d preempting=%t moving=%t backfilled=%t",
			a.Job, nodesString(a.Nodes), a.Start, a.Checkpoint, a.Preempting, a.Moving, a.Backfilled))
	}
	return out
}

// decide builds a plan over the running tasks' allocations (in Sweep's
// order, or with the flag cluster the last snapshot's) and prints its
// effects: preempt=A, move=A:PLACEMENT,
// resize=A:PLACEMENT, start=J:PLACEMENT and backfill=J:PLACEMENT, each
// repeatable and given in any order.
func (p *player) decide(args args) ([]string, error) {
	var plan sched.Plan
	for _, kv := range args.list {
		key, val, _ := strings.Cut(kv, "=")
		at, where, _ := strings.Cut(val, ":")
		n, err := strconv.Atoi(at)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kv, err)
		}
		nodes, err := parseNodes(where)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kv, err)
		}
		switch key {
		case "preempt":
			plan.Preemptions = append(plan.Preemptions, sched.Preemption{Alloc: n})
		case "move":
			plan.Moves = append(plan.Moves, sched.Move{Alloc: n, Nodes: nodes})
		case "resize":
			plan.Resizes = append(plan.Resizes, sched.Resize{Alloc: n, Nodes: nodes, For: -1})
		case "start", "backfill":
			plan.Starts = append(plan.Starts, sched.Start{Job: n, Nodes: nodes, Backfill: key == "backfill"})
		default:
			return nil, fmt.Errorf("unknown decision %q", key)
		}
	}
	var out []string
	var effects []lifecycle.Effect
	if args.flag("cluster") {
		if p.allocTask == nil {
			return nil, fmt.Errorf("no snapshot whose allocations are its running tasks")
		}
		effects = lifecycle.Decide(nil, &plan, p.allocTask) // by the last snapshot's allocations
	} else {
		effects = lifecycle.Decide(nil, &plan, p.c.Tasks.Sweep())
	}
	for _, e := range effects {
		s := fmt.Sprintf("%s t%d job=%d nodes=%s", e.Op, e.Task, e.Job, nodesString(e.Nodes))
		if e.Backfill {
			s += " backfill"
		}
		out = append(out, s)
	}
	changes := len(plan.Preemptions) + len(plan.Moves) + len(plan.Resizes)
	out = append(out, fmt.Sprintf("settled=%t oneshot_settled=%t",
		lifecycle.Settled(len(plan.Starts), changes, false), lifecycle.Settled(len(plan.Starts), changes, true)))
	return out, nil
}

// describe prints task ti's record and when it is due, by the script's
// shape.
func (p *player) describe(ti int32) string { return p.describeBy(ti, p.shape) }

func (p *player) describeBy(ti int32, sh lifecycle.Shape) string {
	t := p.c.Tasks.At(ti)
	s := fmt.Sprintf("t%d v%d job=%d id=%d retries=%d nodes=%s start=%d from=%d work=%d lost=%d",
		ti, t.Ver, t.Job, t.ID, t.Retries, nodesString(t.Nodes), t.Start, t.From, t.Work, t.Lost)
	// A record shows when it is due while it runs, and after it ended
	// completed or killed, which its due may explain.
	switch t.State {
	case lifecycle.TaskRunning, lifecycle.TaskCompleted, lifecycle.TaskKilled:
		if due, limited := t.Due(sh); due >= 0 && !t.Moving {
			s += fmt.Sprintf(" due=%d", due)
			if limited {
				s += "(limit)"
			}
		}
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{t.State == lifecycle.TaskPreempting, fmt.Sprintf("preempting@%d", t.Asked)}, {t.Moving, "moving"},
		{t.Replacing(), "replacing"}, {t.Replacing() && t.Drain >= 0, fmt.Sprintf("drain=t%d", t.Drain)},
		{t.Backfilled, "backfilled"}, {!t.State.Active(), "retired=" + string(t.State)}} {
		if f.on {
			s += " " + f.name
		}
	}
	return s
}

// args are a command's key=value arguments and bare flags.
type args struct {
	kv   map[string]string
	list []string // key=value in order, for repeatable keys
	err  error
}

func parseArgs(fields []string) (args, error) {
	a := args{kv: map[string]string{}}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			v = "true"
		}
		a.kv[k] = v
		if ok {
			a.list = append(a.list, f)
		}
	}
	return a, nil
}

func (a *args) flag(k string) bool { return a.kv[k] == "true" }

func (a *args) int(k string) int64 {
	v, ok := a.kv[k]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil && a.err == nil {
		a.err = fmt.Errorf("%s: %w", k, err)
	}
	return n
}

func (a *args) nodes(k string) []sched.NodeSlots {
	ns, err := parseNodes(a.kv[k])
	if err != nil && a.err == nil {
		a.err = fmt.Errorf("%s: %w", k, err)
	}
	return ns
}

// parseNodes reads a placement: node x slots, joined by +.
func parseNodes(s string) ([]sched.NodeSlots, error) {
	if s == "" {
		return nil, nil
	}
	var ns []sched.NodeSlots
	for _, part := range strings.Split(s, "+") {
		n, k, ok := strings.Cut(part, "x")
		node, err1 := strconv.Atoi(n)
		slots, err2 := strconv.Atoi(k)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("placement %q: want node x slots, like 0x2", part)
		}
		ns = append(ns, sched.NodeSlots{Node: int32(node), Slots: int32(slots)})
	}
	return ns, nil
}

func nodesString(ns []sched.NodeSlots) string {
	if len(ns) == 0 {
		return "-"
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprintf("%dx%d", n.Node, n.Slots)
	}
	return strings.Join(parts, "+")
}
