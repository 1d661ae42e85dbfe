package master

import (
	"fmt"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
)

// A job with no time limit behind a backfill head with no reserved start
// (trial finding D13). When a task the head waits for has no time limit,
// no start can be reserved for it; a later job with a time limit that
// fits now starts (it holds the head back at most by its limit), but one
// without a time limit could hold the head's slots for ever, and waits
// (sched: would_delay with At Never). Its counterfactual found its slots
// free now, which would read "it would start at once if nothing ranked
// before it and no rule held it back": the play-out asks the core which
// rule, and says that it needs a time limit, naming the running jobs
// with none.

// untimedAsk is the play-out of job ji of s, whose slots are free now,
// when it has no time limit and other jobs of its pool wait (one of them
// may be a head with no reserved start), nil otherwise.
func untimedAsk(s *sched.Snapshot, ji int) *aheadAsk {
	if s.Jobs[ji].TimeLimit > 0 || !othersWait(s, ji) {
		return nil
	}
	return &aheadAsk{project: -1, untimed: true}
}

// untimedAnswer is cf, or, when the core keeps job ji off the free slots
// because the job it may not pass has no reserved start, the answer
// that says so: it starts once that job has started, or at once with a
// time limit (which the core's reason says too, in other words).
func (f *cfFacts) untimedAnswer(p *aheadPlay, ji int, cf *api.Counterfactual) *api.Counterfactual {
	o := p.trial(make([]bool, len(p.s.Allocs)))
	if o.room || !o.unreserved || o.delays < 0 || o.delays >= len(f.s.Jobs) {
		return cf
	}
	need := f.s.Jobs[ji].Slots
	out := *cf
	out.MustEnd, out.NotBefore = nil, nil
	out.StartFirst = f.aheadRefs([]int{o.delays})
	out.Message = fmt.Sprintf("The %s it needs %s free now on %s, but %s: with a time limit it could start now; without one it waits until job %s has started.",
		slotWord(need), plural.Be(need), strings.Join(cf.Nodes, ", "), f.noStartWords(o.delays), f.label(o.delays))
	if out.Quota != "" {
		out.Message += " " + out.Quota
	}
	return &out
}

// noStartWords says that job head, which a job with no time limit may
// not pass, has no reserved start, and why: "job 10 ahead of it has no
// reserved start (job 3 runs with no time limit)". The running jobs
// named are those of head's pool with no time limit; none when its
// start is unknown for another cause (drained nodes), which head's own
// reason says.
func (f *cfFacts) noStartWords(head int) string {
	s := f.s
	var untimed []int
	for ai := range s.Allocs {
		a := &s.Allocs[ai]
		if j := &s.Jobs[a.Job]; j.Pool == s.Jobs[head].Pool && j.TimeLimit <= 0 && !a.Preempting && sched.Slots(a.Nodes) > 0 {
			untimed = append(untimed, a.Job)
		}
	}
	why := ""
	if refs := f.aheadRefs(dedupe(untimed)); len(refs) > 0 {
		runs := "runs"
		if len(refs) > 1 {
			runs = "run"
		}
		why = fmt.Sprintf(" (%s %s with no time limit)", jobList(refs), runs)
	}
	return fmt.Sprintf("job %s ahead of it has no reserved start%s", f.label(head), why)
}

// dedupe is jobs with each kept once, in order.
func dedupe(jobs []int) []int {
	var out []int
	seen := map[int]bool{}
	for _, j := range jobs {
		if !seen[j] {
			seen[j] = true
			out = append(out, j)
		}
	}
	return out
}
