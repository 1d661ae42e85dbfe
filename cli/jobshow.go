package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
)

// printJob prints a job's fields, then one row per attempt of each task.
func printJob(w io.Writer, j api.Job) error {
	t := newTable(w, "ID", strconv.FormatInt(j.ID, 10))
	t.row("Name", j.Name)
	t.row("Kind", orDash(j.Kind))
	t.row("State", j.ShownState())
	if j.Reason != "" {
		t.row("Reason", j.Reason)
	}
	if j.Pending != nil {
		t.row("Pending", pendingText(j.Pending))
	}
	if j.Position > 0 {
		t.row("Position", fmt.Sprintf("%d in pool %s", j.Position, j.Pool))
	}
	t.row("Pool", j.Pool)
	t.row("Project", j.Project)
	t.row("User", orDash(j.User))
	t.row("Priority", priorityText(j))
	t.row("Weight", strconv.FormatFloat(j.Weight, 'g', -1, 64))
	t.row("Preemptible", yesNo(j.Preemptible))
	if j.OnPreempt != "" {
		t.row("On preempt", exitActionsText(j))
	}
	t.row("Slots", slotsText(j))
	t.row("Tasks", tasksText(j))
	if j.Holding > 0 {
		t.row("Holding", plural.Count(j.Holding, "GPU")+" now")
	}
	for _, r := range requestedRows(j) {
		t.row(r[0], r[1])
	}
	limit := "none"
	if j.TimeLimitS > 0 {
		limit = exactDuration(j.TimeLimitS)
	}
	t.row("Time limit", limit)
	t.row("Submitted", formatTime(&j.SubmittedAt))
	for _, r := range endedRows(j) {
		t.row(r[0], r[1])
	}
	// A script keeps its lines, each under the one before it, so that
	// it reads as the shell runs it.
	lines := strings.Split(strings.TrimRight(j.Entrypoint, "\n"), "\n")
	t.row("Entrypoint", lines[0])
	for _, l := range lines[1:] {
		t.row("", l)
	}
	if len(j.Environment) > 0 {
		var env []string
		for _, k := range slices.Sorted(maps.Keys(j.Environment)) {
			if j.EnvironmentHidden {
				env = append(env, k) // another user's job: names only
				continue
			}
			env = append(env, k+"="+j.Environment[k])
		}
		if j.EnvironmentHidden {
			env = append(env, "("+api.HiddenNote+")")
		}
		t.row("Environment", strings.Join(env, " "))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if len(j.TaskList) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return printTasks(w, j.TaskList)
}

// printTasks prints one row per attempt; a task without attempts gets one
// row of dashes, and a task's own columns are shown on its first row only.
func printTasks(w io.Writer, tasks []api.Task) error {
	t := newTable(w, "TASK", "STATE", "RESTARTS", "ATTEMPT", "PLACEMENT", "STARTED", "ENDED", "END", "EXIT", "REASON")
	for _, tk := range tasks {
		head := []string{strconv.Itoa(tk.Index), tk.ShownState(), strconv.Itoa(tk.Restarts)}
		blank := []string{"", "", ""}
		if len(tk.Attempts) == 0 {
			t.row(append(head, "-", "-", "-", "-", "-", "-", orDash(tk.Reason))...)
			continue
		}
		for i, a := range tk.Attempts {
			cols := blank
			if i == 0 {
				cols = head
			}
			exit := "-"
			if a.ExitCode != nil {
				exit = strconv.Itoa(*a.ExitCode)
			}
			reason := a.Reason
			if a.PreemptedBy != nil {
				reason = preemptedByText(a.PreemptedBy, a.Reason)
			}
			if a.Stopped != "" {
				reason += "; " + lostStoppedText(a.EndedAt, a.ExitedAt, a.Stopped)
			}
			if reason == "" && i == len(tk.Attempts)-1 {
				reason = tk.Reason
			}
			if reason == everyPartRuns && len(a.Placement) <= 1 {
				reason = "running" // a one-node attempt a master before trial 29d D3 recorded
			}
			if i == len(tk.Attempts)-1 {
				reason = withTaskEnd(reason, tk)
			}
			t.row(append(slices.Clone(cols), strconv.Itoa(a.Number), placementText(a.Placement),
				formatTime(&a.StartedAt), endedText(a), orDash(attemptEnd(a)), exit, orDash(reason))...)
		}
	}
	return t.flush()
}

// withTaskEnd adds to reason, its last attempt's REASON, why task tk
// failed or was killed where the attempt's end does not say it: a task
// its exit actions failed at a preemption ends "preempted 2 times,
// max_retries 1", which the attempt's preemption does not (trial
// 2026-11-29d D4).
func withTaskEnd(reason string, tk api.Task) string {
	if tk.State != "failed" && tk.State != "killed" || tk.Reason == "" || strings.Contains(reason, tk.Reason) {
		return reason
	}
	end := "task " + tk.State + ": " + tk.Reason
	if reason == "" {
		return end
	}
	return reason + "; " + end
}

// everyPartRuns is a gang attempt's reason once all its parts run; a
// master before trial 2026-11-29d (D3) gave it to one-node attempts too,
// which have no parts to speak of.
const everyPartRuns = "every part runs"

// heardLate is how much later than the attempt's exit the master may
// hear of it before ENDED says when it exited: more than a few of the
// agents' polls (a second apart), so that a report delayed by an outage
// (of the master, its store or the node's network) shows, even a short
// one, such as a master's restart (trial 2026-11-29a A1: 29 s, which a
// threshold of 30 s hid, while the job's Ended line gave the exit).
const heardLate = 5 * time.Second

// endedText is an attempt's ENDED: when the master ended it, and when its
// processes exited if that was materially earlier ("(exited 04:30:20)"),
// since usage is charged to the exit, not to when the master heard.
func endedText(a api.Attempt) string {
	ended := formatTime(a.EndedAt)
	if a.EndedAt == nil || a.ExitedAt == nil || a.EndedAt.Sub(*a.ExitedAt) <= heardLate && a.Stopped == "" {
		return ended
	}
	layout := "15:04:05"
	if e, x := a.EndedAt.In(displayZone), a.ExitedAt.In(displayZone); e.YearDay() != x.YearDay() || e.Year() != x.Year() {
		layout = "2006-01-02 15:04:05"
	}
	return ended + " (exited " + a.ExitedAt.In(displayZone).Format(layout) + ")"
}

// lostStoppedText says when and how an attempt lost with its node had
// stopped, by its agent's report once back (api.Attempt.Stopped): "it
// had stopped at 18:45:13, 11s before (fenced by its task shim,
// checkpoint requested)". A researcher asks, after a node loss, whether
// the old copy stopped, and checkpointed, before the new one started.
func lostStoppedText(ended, exited *time.Time, stopped string) string {
	if ended == nil || exited == nil {
		return "it had stopped (" + stopped + ")"
	}
	layout := "15:04:05"
	if e, x := ended.In(displayZone), exited.In(displayZone); e.YearDay() != x.YearDay() || e.Year() != x.Year() {
		layout = "2006-01-02 15:04:05"
	}
	return fmt.Sprintf("it had stopped at %s, %s before (%s)", exited.In(displayZone).Format(layout),
		ended.Sub(*exited).Round(time.Second), stopped)
}

// attemptEnd is an attempt's END: its end state, but resized or moved
// for an attempt the core resized (a fair-share shrink, a growth) or
// moved: the store ends those as preempted, as they checkpoint and stop
// the same way, but the task runs on at once in its new placement, and
// "preempted" tells its owner the job was pushed out. An attempt its
// searcher stopped (killed, the task completed) is stopped: the kill is
// how a stop ends it, not a user's (docs/experiments.md).
func attemptEnd(a api.Attempt) string {
	if a.EndState == "killed" && strings.HasPrefix(a.Reason, searcherStopped) {
		return "stopped"
	}
	if a.EndState != "preempted" {
		return a.EndState
	}
	switch {
	case a.Fenced:
		// Its agent's fence stopped it, the master unreachable: no
		// pass preempted it (trial 2026-11-29a A8).
		return "fenced"
	case a.AgentStopped:
		// Its node's agent stopped it as the agent shut down: no pass
		// preempted it either.
		return "agent-stopped"
	case a.PreemptedBy != nil && a.PreemptedBy.Reason == "resized", strings.HasSuffix(a.Reason, "checkpointed to resize"):
		return "resized"
	case a.PreemptedBy != nil && a.PreemptedBy.Reason == "moved", strings.HasSuffix(a.Reason, "checkpointed to move"):
		return "moved"
	}
	return a.EndState
}

// preemptedByText is a preempted attempt's REASON: who preempted it and
// under which rule, as allot explain says it, then how it ended, without
// the end reason's own "preempted: ": "preempted for alice's job 4
// (priority 10 runs before the preempted job's 70); checkpointed after
// preemption". A job the caller may not read is named by number alone.
func preemptedByText(p *api.PreemptedBy, ended string) string {
	ref := "job " + strconv.FormatInt(p.Job, 10)
	why := p.Why
	if !strings.Contains(why, ref) {
		why = "preempted for " + ref
	}
	if p.User != "" {
		why = strings.Replace(why, ref, p.User+"'s "+ref, 1)
	}
	if how := strings.TrimPrefix(ended, "preempted: "); how != "" {
		return why + "; " + how
	}
	return why
}

// pendingText renders why a job waits, with what blocks it and its
// estimated start when the scheduler knows them.
func pendingText(p *api.Pending) string {
	s := p.Reason
	if p.Message != "" {
		s += ": " + p.Message
	}
	var more []string
	if p.BlockedBy > 0 {
		more = append(more, "blocked by "+blockerText(p))
	}
	if p.EstimatedStart != nil {
		// As allot jobs and explain show it: a forecast as one, with
		// its range when the master gives the early end.
		est := formatTime(p.EstimatedStart)
		if e := p.EstimatedStartEarliest; e != nil && e.Before(*p.EstimatedStart) {
			est = formatTime(e) + " to " + est
		}
		switch p.EstimateBasis {
		case "forecast":
			est += ", a forecast"
		case basisCheckpoint:
			est = "by " + est + ", when the checkpoints it waits for are due"
		}
		more = append(more, "estimated start "+est)
	}
	if len(more) > 0 {
		s += " (" + strings.Join(more, "; ") + ")"
	}
	return s
}

// placementText renders an attempt's nodes and GPUs: "n1:0-3 n2:0,2".
func placementText(ps []api.Placement) string {
	if len(ps) == 0 {
		return "-"
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Node
		if len(p.GPUs) > 0 {
			parts[i] += ":" + gpuRanges(p.GPUs)
		}
	}
	return strings.Join(parts, " ")
}

// gpuRanges renders GPU indexes with runs folded: 0-3,6.
func gpuRanges(gpus []int) string {
	g := slices.Sorted(slices.Values(gpus))
	var parts []string
	for i := 0; i < len(g); {
		j := i
		for j+1 < len(g) && g[j+1] == g[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", g[i], g[j]))
		} else {
			parts = append(parts, strconv.Itoa(g[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// exitActionsText is a job's exit actions (on_preempt, max_retries) that
// are not the default: "fail", "reschedule, max_retries 2".
func exitActionsText(j api.Job) string {
	s := j.OnPreempt
	if j.MaxRetries != nil {
		s += ", max_retries " + strconv.Itoa(*j.MaxRetries)
	}
	return s
}

// slotsText is the slots a task asks for, with the least an elastic one
// runs on.
func slotsText(j api.Job) string {
	s := fmt.Sprintf("%d per task", j.Slots)
	if j.MinSlots > 0 {
		s += fmt.Sprintf(", elastic down to %d", j.MinSlots)
	}
	return s
}

// requestedRows are the job file's other scheduling hints, those set,
// named as in the file, so that a user reads back what was submitted.
func requestedRows(j api.Job) [][2]string {
	var rows [][2]string
	add := func(name, v string) {
		if v != "" && v != "0" {
			rows = append(rows, [2]string{name, v})
		}
	}
	add("Max slots", strconv.Itoa(j.MaxSlots))
	add("GPU type", j.GPU)
	add("Topology", j.Topology)
	var lic []string
	for _, name := range slices.Sorted(maps.Keys(j.Licenses)) {
		lic = append(lic, fmt.Sprintf("%s=%d", name, j.Licenses[name]))
	}
	if len(lic) > 0 {
		add("Licenses", strings.Join(lic, ", ")+" per task")
	}
	add("QOS", j.QOS)
	add("Nice", strconv.Itoa(j.Nice))
	if j.CheckpointEvery > 0 {
		add("Checkpoints", "every "+exactDuration(j.CheckpointEvery))
	}
	return rows
}
