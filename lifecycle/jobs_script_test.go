package lifecycle_test

import (
	"fmt"
	"slices"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// runJob plays the Cluster commands of a script (testdata/tasks/jobs.txt,
// cluster.txt):
//
//	job tasks=N work=W [slots=S] [elastic] [every=S] [limit=S] [fail] [retries=N]
//	start j=J nodes=P at=T [backfill]    a waiting task of job J starts
//	stop t=T at=T                        task T is preempted
//	relocate t=T nodes=P at=T [resize]   task T is moved (or resized)
//	exit t=T [timeout]                   task T ends, done or timed out
//	landed t=T [at=T]                    task T's checkpoint lands (a
//	                                     re-placed one resumes at T)
//	snapshot at=T                        the jobs and allocations a pass sees
//
// Each but snapshot prints the task it acted on and its job; a job whose
// tasks have all ended is finished, as a driver does.
func (p *player) runJob(cmd string, args args) ([]string, error) {
	switch cmd {
	case "job":
		sh := lifecycle.Shape{Elastic: args.flag("elastic"), Every: args.int("every"), Limit: args.int("limit")}
		tasks := int(args.int("tasks"))
		ji := submit(&p.c, 0, lifecycle.Submission{Tasks: tasks, Fresh: args.int("work"), Shape: sh,
			FailOnPreempt: args.flag("fail"), MaxRetries: int(args.int("retries")), Project: -1, Account: -1},
			sched.Job{ID: fmt.Sprintf("j%d", p.c.NextJob()), Slots: int(args.int("slots"))})
		return []string{p.describeJob(ji)}, args.err
	case "snapshot":
		return p.snapshot(args.int("at")), args.err
	case "start":
		ji := int32(args.int("j"))
		if args.err != nil || ji < 0 || int(ji) >= len(p.c.Jobs) {
			return nil, fmt.Errorf("no job %d", ji)
		}
		ti := p.c.Launch(ji, args.nodes("nodes"), args.flag("backfill"), args.int("at"))
		return p.after(ti, nil), args.err
	}
	ti := int32(args.int("t"))
	var out []string
	switch cmd {
	case "stop":
		out = append(out, fmt.Sprintf("lost=%d", p.c.Preempt(ti, args.int("at"))))
	case "relocate":
		r := lifecycle.Move
		if args.flag("resize") {
			r = lifecycle.Resize
		}
		nodes := args.nodes("nodes")
		res := p.c.Replace(ti, nodes, r, r == lifecycle.Move, args.int("at"))
		out = append(out, fmt.Sprintf("lost=%d delta=%d", res.Lost, res.Delta))
		if res.Drain >= 0 {
			out = append(out, p.describeBy(res.Drain, p.c.Jobs[p.c.Tasks.At(ti).Job].Shape))
		}
	case "exit":
		out = append(out, fmt.Sprintf("freed=%d", p.c.Exit(ti, args.flag("timeout"))))
	case "landed":
		if p.c.Tasks.At(ti).Replacing() {
			oi, freed := p.c.Landed(ti, args.int("at"))
			out = append(out, fmt.Sprintf("freed=%d", freed))
			if oi >= 0 {
				out = append(out, p.describeBy(oi, p.c.Jobs[p.c.Tasks.At(ti).Job].Shape))
			}
		} else {
			out = append(out, fmt.Sprintf("freed=%d", p.c.Checkpointed(ti)))
		}
	}
	return p.after(ti, out), args.err
}

// after prints what a job command did to task ti and its job, finishing
// the job once Over says every task has ended.
func (p *player) after(ti int32, out []string) []string {
	ji := p.c.Tasks.At(ti).Job
	j := &p.c.Jobs[ji]
	out = append(out, p.describeBy(ti, j.Shape))
	if st, over := j.Over(); over {
		p.c.Finish(ji, st, -1)
	}
	return append(out, p.describeJob(ji))
}

// snapshot prints the jobs and allocations of a pass at now.
func (p *player) snapshot(now int64) []string {
	last := p.c.Snapshot(&p.snap, now)
	p.noteAllocs(&p.snap)
	out := []string{fmt.Sprintf("last_running=%d", last)}
	for i, j := range p.snap.Jobs {
		out = append(out, fmt.Sprintf("job %d %s waiting=%d", i, j.ID, j.Waiting))
	}
	for _, a := range p.snap.Allocs {
		out = append(out, fmt.Sprintf("alloc job=%d nodes=%s start=%d checkpoint=%d preempting=%t moving=%t backfilled=%t",
			a.Job, nodesString(a.Nodes), a.Start, a.Checkpoint, a.Preempting, a.Moving, a.Backfilled))
	}
	return out
}

// noteAllocs keeps the task record of each allocation of snap, just
// taken (Cluster.Snapshot): one for each task in the running list, swept,
// unless a task is held on down nodes only, when it cannot be told.
func (p *player) noteAllocs(snap *sched.Snapshot) {
	p.allocTask = nil
	if running := p.c.Tasks.Running(); len(running) == len(snap.Allocs) {
		p.allocTask = slices.Clone(running)
	}
}

func (p *player) describeJob(ji int32) string {
	j := &p.c.Jobs[ji]
	s := fmt.Sprintf("j%d %s waiting=%d running=%d held=%d done=%d timeout=%d failed=%d moving=%d preempts=%d next=%d start=%d",
		ji, j.State, j.Waiting, j.Active, j.Held, j.Ended, j.Timeout, j.Failed, j.Moving, j.Preempts, j.NextTask, j.Start)
	for _, r := range j.Resume {
		s += fmt.Sprintf(" resume(id=%d work=%d retries=%d)", r.ID, r.Work, r.Retries)
	}
	if j.State.Terminal() {
		s += " ended"
	}
	return s
}
