package lifecycle_test

import (
	"fmt"

	"github.com/allot-sched/allot/lifecycle"
)

// runJob plays the job commands of a script (testdata/tasks/jobs*.txt):
//
//	job tasks=N work=W [elastic] [every=S] [limit=S] [fail] [retries=N]
//	start j=J nodes=P at=T [backfill]    a waiting task of job J starts
//	stop t=T at=T                        its job preempts task T
//	relocate t=T nodes=P at=T [resize]   its job moves (or resizes) task T
//	exit t=T [timeout]                   task T ends, done or timed out
//	landed t=T                           task T's checkpoint lands
//
// Each prints the task it acted on and its job.
func (p *player) runJob(cmd string, args args) ([]string, error) {
	if cmd == "job" {
		sh := lifecycle.Shape{Elastic: args.flag("elastic"), Every: args.int("every"), Limit: args.int("limit")}
		j := lifecycle.NewJob(int(args.int("tasks")), args.int("work"), sh, args.flag("fail"), int(args.int("retries")), nil)
		p.jobs = append(p.jobs, j)
		return []string{p.describeJob(int32(len(p.jobs) - 1))}, args.err
	}
	var ti int32
	if cmd == "start" {
		ji := int32(args.int("j"))
		if args.err != nil || ji < 0 || int(ji) >= len(p.jobs) {
			return nil, fmt.Errorf("no job %d", ji)
		}
		ti = p.jobs[ji].Launch(&p.ts, ji, args.nodes("nodes"), args.flag("backfill"), args.int("at"))
		return p.after(ti, ji, nil), args.err
	}
	ti = int32(args.int("t"))
	ji := p.ts.At(ti).Job
	j := &p.jobs[ji]
	var out []string
	switch cmd {
	case "stop":
		out = append(out, fmt.Sprintf("lost=%d", j.Preempt(&p.ts, ti, args.int("at"))))
	case "relocate":
		r := lifecycle.Move
		if args.flag("resize") {
			r = lifecycle.Resize
		}
		nodes := args.nodes("nodes")
		res := j.Replace(&p.ts, ti, nodes, lifecycle.Draining(nil, r, p.ts.At(ti).Nodes, nodes), args.int("at"))
		out = append(out, fmt.Sprintf("lost=%d delta=%d", res.Lost, res.Delta))
		if res.Drain >= 0 {
			out = append(out, p.describeBy(res.Drain, j.Shape))
		}
	case "exit":
		out = append(out, fmt.Sprintf("freed=%d", j.Exit(&p.ts, ti, args.flag("timeout"))))
	case "landed":
		if p.ts.At(ti).Moving {
			out = append(out, fmt.Sprintf("freed=%d", j.Drained(&p.ts, ti)))
		} else {
			out = append(out, fmt.Sprintf("freed=%d", j.Checkpointed(&p.ts, ti)))
		}
	}
	return p.after(ti, ji, out), args.err
}

// after prints what a job command did, task ti and job ji, ending the job
// as a driver does once Over says every task has ended.
func (p *player) after(ti, ji int32, out []string) []string {
	out = append(out, p.describeBy(ti, p.jobs[ji].Shape))
	if st, over := p.jobs[ji].Over(); over && p.jobs[ji].Alive {
		p.jobs[ji].Finish(st, -1)
	}
	return append(out, p.describeJob(ji))
}

var stateNames = [...]string{lifecycle.JobPending: "pending", lifecycle.JobRunning: "running",
	lifecycle.JobCompleted: "completed", lifecycle.JobFailed: "failed", lifecycle.JobKilled: "killed"}

func (p *player) describeJob(ji int32) string {
	j := &p.jobs[ji]
	s := fmt.Sprintf("j%d %s waiting=%d running=%d held=%d done=%d timeout=%d failed=%d moving=%d preempts=%d next=%d start=%d",
		ji, stateNames[j.State], j.Waiting, j.Running, j.Held, j.Done, j.Timeout, j.Failed, j.Moving, j.Preempts, j.NextTask, j.Start)
	for _, r := range j.Resume {
		s += fmt.Sprintf(" resume(id=%d work=%d retries=%d)", r.ID, r.Work, r.Retries)
	}
	if !j.Alive {
		s += " ended"
	}
	return s
}
