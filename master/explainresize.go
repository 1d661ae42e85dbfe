package master

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/plural"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// Resizes in explanations and dry runs. A task the core resizes (a
// fair-share shrink for a job below its share, sched.Resize) runs on in
// its new placement while what of the old one it does not keep drains,
// preempting and moving, until its checkpoint lands. What a waiting job
// waits for is then that checkpoint, but the task is not preempted: it
// shrinks, and restarts at once. The counterfactual names it so ("once
// job 15 shrinks to 1 slot and checkpoints"), and a dry run lists the
// shrinks it would set off ("Would resize") as it lists its victims.

// resizedAllocs maps the planner's snapshot's allocations that a resize
// leaves draining to the task's slots before and after it. Callers hold
// mu. A function, not a method: the planner's methods are its passes'.
func resizedAllocs(pl *planner) map[int]api.SlotChange {
	s := &pl.snap
	if len(pl.view.allocs) != len(s.Allocs) {
		return nil
	}
	var out map[int]api.SlotChange
	for a := range s.Allocs {
		if !s.Allocs[a].Moving {
			continue
		}
		if c, ok := resizeOf(pl.view.allocs[a]); ok {
			if out == nil {
				out = map[int]api.SlotChange{}
			}
			out[a] = c
		}
	}
	return out
}

// resizeOf is the resize of the task whose old placement r stands for
// (taskSlots).
func resizeOf(r allocRef) (api.SlotChange, bool) {
	if r.next {
		return api.SlotChange{}, false
	}
	return taskSlots(r.t)
}

// taskSlots is the slots of task t's open attempt and of the placement
// reserved for it, which a resize changes and a move keeps; false for a
// task with none reserved or one they do not change.
func taskSlots(t *mtask) (api.SlotChange, bool) {
	if t == nil || t.next == nil || t.att == nil {
		return api.SlotChange{}, false
	}
	var c api.SlotChange
	for _, p := range t.att.parts {
		c.From += len(p.gpus)
	}
	for _, p := range t.next {
		c.To += len(p.gpus)
	}
	return c, c.From != c.To
}

// resizeWords is what a job being resized does, for mustEndPhrase:
// "shrinks to 1 slot", or "grows to 4 slots" for a task whose growth
// leaves part of its old placement.
func resizeWords(c *api.SlotChange) string {
	if c.To < c.From {
		return "shrinks to " + slotWord(c.To)
	}
	return "grows to " + slotWord(c.To)
}

// resizedPhrase says the jobs of refs, each resized, in the present tense
// that follows "once": "job 15 shrinks to 1 slot and checkpoints".
func resizedPhrase(refs []api.JobRef) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = fmt.Sprintf("job %d %s and checkpoints", r.ID, resizeWords(r.Resize))
	}
	if n := len(parts); n > 1 {
		return strings.Join(parts[:n-1], ", ") + " and " + parts[n-1]
	}
	return parts[0]
}

// resizeOfRef is the resize of job j's allocations among ends, when
// every one of them is what a resize leaves draining: the first's.
func (f *cfFacts) resizeOfRef(j int, ends []int) *api.SlotChange {
	var c *api.SlotChange
	for _, ai := range ends {
		if f.s.Allocs[ai].Job != j {
			continue
		}
		rc, ok := f.resized[ai]
		if !ok {
			return nil
		}
		if c == nil {
			c = &rc
		}
	}
	return c
}

// addResize counts resize e, which makes room for the dry run's job,
// against the resized task's job in rs, with the rule that lets it, as
// the live master's resize reason words it (replaceOp).
func addResize(rs []api.DryRunResize, s *sched.Snapshot, e *lifecycle.Effect) []api.DryRunResize {
	a := &s.Allocs[e.Task]
	id, err := parseJobID(s.Jobs[a.Job].ID)
	if err != nil {
		return rs
	}
	return append(rs, api.DryRunResize{Job: id, From: sched.Slots(a.Nodes), To: sched.Slots(e.Nodes),
		Why: resizeWhy(s, sched.Preemption{Alloc: int(e.Task), For: e.For})})
}

// resizeSummary is a dry run's sentence for the shrinks it would set
// off, and why its other tasks would wait, for dryRunSummary.
func resizeSummary(d api.DryRun) string {
	var jobs []string
	for _, r := range d.Resizes {
		jobs = append(jobs, fmt.Sprintf("job %d from %s to %d", r.Job, slotWord(r.From), r.To))
	}
	landed := "its checkpoint has"
	if len(d.Resizes) > 1 {
		landed = "their checkpoints have"
	}
	m := fmt.Sprintf(" It would shrink %s and start once %s landed.", strings.Join(jobs, ", "), landed)
	if d.Pending != nil && d.Pending.Reason != sched.ReasonCheckpointing.String() {
		m += fmt.Sprintf(" Its other tasks would wait: %s.", d.Pending.Message)
	}
	if d.Pending != nil && d.Pending.EstimatedStart != nil {
		m += " Estimated start: " + estimateWords(d.Pending) + "."
	}
	return m
}

// resizes redacts the resized jobs the caller may not read.
func (rd redactor) resizes(rs []api.DryRunResize) []api.DryRunResize {
	if rs == nil {
		return nil
	}
	rs = append([]api.DryRunResize(nil), rs...)
	for i := range rs {
		if r := &rs[i]; rd.private(r.Job, "", r.User) {
			r.Name, r.User, r.Private = "", "", true
		}
	}
	return rs
}

// resizedAttempt is preempted attempt a's account as a resize, when it
// ended resized in place (its preempting event's cause, else its end
// reason, agents.go's "checkpointed to resize"): the slots it held and
// those its task's next attempt ran on (the event's "resizing to N
// slots" while none has started), and the job it shrank for and why, as
// the event keeps them (store.Event.ForJob, Why), in words.
// d is the event, zero when the store has none.
func resizedAttempt(a store.Attempt, d store.Event, atts []store.Attempt) (api.Resize, bool) {
	if d.Cause != store.CauseResized && !strings.HasSuffix(a.Reason, resizedEnd) {
		return api.Resize{}, false
	}
	rz := api.Resize{Task: a.Index, Attempt: a.Number, At: a.EndedAt.UTC(), From: placedSlots(a.Placement)}
	for _, n := range atts {
		if n.Index == a.Index && n.Number == a.Number+1 {
			rz.To = placedSlots(n.Placement)
		}
	}
	if rz.To == 0 {
		if to, ok := strings.CutPrefix(d.Reason, resizeReason); ok {
			rz.To, _ = strconv.Atoi(strings.Fields(to + " 0")[0])
		}
	}
	verb := "grown"
	if rz.To < rz.From {
		verb = "shrunk"
	}
	rz.Why = fmt.Sprintf("%s from %d to %s", verb, rz.From, slotWord(rz.To))
	if rz.To == 0 {
		rz.Why = "resized from " + slotWord(rz.From)
	}
	if d.ForJob != 0 {
		rz.ForJob = d.ForJob
		rz.Why += fmt.Sprintf(" for job %d", d.ForJob)
		if d.Why != "" {
			rz.Why += " (" + d.Why + ")"
		}
	}
	if how := strings.TrimPrefix(a.Reason, "preempted: "); how != "" && how != resizedEnd {
		rz.Why += "; " + how
	}
	return rz, true
}

// resizedEnd is the end reason of an attempt resized in place
// (finishTransitions).
const resizedEnd = "checkpointed to resize"

// placedSlots counts the GPUs of a placement.
func placedSlots(ps []store.Placement) int {
	n := 0
	for _, p := range ps {
		n += len(p.GPUs)
	}
	return n
}

// resizedSentence counts a job's resized attempts by task, shrinks and
// growths apart, as preemptedSentence counts preemptions: "Its task 0
// was resized twice (shrunk once for job 2, grown once).", "2 of its
// tasks were resized, 3 times in all (shrunk twice for jobs 2 and 5,
// grown once)."
func resizedSentence(rs []api.Resize) string {
	tasks := map[int]bool{}
	shrunk, grown := 0, 0
	var forJobs []int64
	for _, r := range rs {
		tasks[r.Task] = true
		if r.To >= r.From {
			grown++
			continue
		}
		shrunk++
		if r.ForJob != 0 && !slices.Contains(forJobs, r.ForJob) {
			forJobs = append(forJobs, r.ForJob)
		}
	}
	var kinds []string
	if shrunk > 0 {
		k := "shrunk " + plural.Times(shrunk)
		if len(forJobs) > 0 {
			k += " for " + joinJobs(forJobs)
		}
		kinds = append(kinds, k)
	}
	if grown > 0 {
		kinds = append(kinds, "grown "+plural.Times(grown))
	}
	how := " (" + strings.Join(kinds, ", ") + ")."
	n := len(rs)
	switch {
	case len(tasks) == 1:
		return fmt.Sprintf("Its task %d was resized %s%s", rs[0].Task, plural.Times(n), how)
	case len(tasks) == n:
		return fmt.Sprintf("%d of its tasks were resized, once each%s", n, how)
	}
	return fmt.Sprintf("%d of its tasks were resized, %s in all%s", len(tasks), plural.Times(n), how)
}

// joinJobs writes "job 2", "jobs 2 and 5", "jobs 2, 5 and 8".
func joinJobs(ids []int64) string {
	nums := make([]string, len(ids))
	for i, id := range ids {
		nums[i] = strconv.FormatInt(id, 10)
	}
	if len(nums) == 1 {
		return "job " + nums[0]
	}
	return "jobs " + strings.Join(nums[:len(nums)-1], ", ") + " and " + nums[len(nums)-1]
}
