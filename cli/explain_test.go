package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

func fixtureExplanation() api.Explanation {
	end := t0.Add(40 * time.Minute)
	return api.Explanation{Job: 4, State: "queued", Pool: "research", Policy: "priority", Order: "by priority (the lower number first), then by submission",
		Position: 2, Queued: 3, Ahead: []api.JobRef{{ID: 3, Name: "bert", User: "bo", Slots: 8}},
		Pending: &api.Pending{Reason: "no_capacity", Message: "needs 4 slots per task, 0 are free in the pool"},
		WouldStart: &api.Counterfactual{Nodes: []string{"dgx-1"},
			MustEnd: []api.JobRef{{ID: 1, Name: "resnet", User: "ann", Project: "vision", Slots: 4, EndsAt: &end}},
			Message: "It could start on dgx-1 once job 1 ends or is preempted."},
		Preemptions: []string{"task 0 attempt 1 at 2024-05-01T09:00:00Z: preempted for job 9 (priority 5 runs before the preempted job's 40)"},
		Preempted: []api.Preemption{{Task: 0, Attempt: 1, At: time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC),
			Why: "preempted for job 9 (priority 5 runs before the preempted job's 40)"}},
		Summary: "It is 2nd of 3 waiting in pool research. It could start on dgx-1 once job 1 ends or is preempted."}
}

func TestExplainCommand(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "explain", args: []string{"explain", "4"}, out: `Job 4 (queued, pool research, priority)

It is 2nd of 3 waiting in pool research. It could start on dgx-1 once job 1
ends or is preempted.

Queue:    2 of 3, ordered by priority (the lower number first), then by submission
Ahead:    3 bert (bo, 8 slots)
Reason:   no_capacity: needs 4 slots per task, 0 are free in the pool

What would let it start now:
  on dgx-1, once these end or are preempted:
  JOB  NAME    USER  PROJECT  SLOTS  LIMIT ENDS
  1    resnet  ann   vision   4      ` + t0.Add(40*time.Minute).UTC().Format("2006-01-02 15:04") + ` (in 40m)

Preempted:
  task 0 attempt 1 at 2024-05-01 09:00:00: preempted for job 9 (priority 5 runs before the preempted job's 40)
`},
		{name: "bad id", args: []string{"explain", "x"}, err: `job ID: expected a positive integer, got "x"`},
	})
}

// TestExplainMustEndHeading: the table of jobs that must end says "or are
// preempted" only where the master's message says the pool may preempt.
func TestExplainMustEndHeading(t *testing.T) {
	tests := []struct {
		name, message, want string
	}{
		{"may preempt", "It could start on dgx-1 once job 1 ends or is preempted.", "once these end or are preempted:"},
		{"never preempts", "It could start on dgx-1 once job 1 ends.", "once these end:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.WouldStart.Message = tt.message
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "  on dgx-1, "+tt.want+"\n") {
				t.Errorf("output lacks %q:\n%s", tt.want, b.String())
			}
		})
	}
}

// TestExplainProjectMustEnd: where its project's limit or quota binds
// in a quota pool, the master names no node, only the project's own jobs
// that must end: the table says so, with no empty "on ," and no
// "preempted" for a message whose quota advice speaks of preemption.
func TestExplainProjectMustEnd(t *testing.T) {
	x := fixtureExplanation()
	x.WouldStart.Nodes = nil
	x.WouldStart.Message = "Only project vision's own work in pool research ending would start it, not other projects': it could start once job 1 ends, or once the project's quota is raised."
	x.WouldStart.Quota = "Submitted preemptible, it could borrow idle slots, and be preempted when they are reclaimed."
	var b bytes.Buffer
	if err := printExplanation(&b, x); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "  once these of its project's jobs end:\n") || strings.Contains(out, "on ,") {
		t.Errorf("output lacks the project's jobs heading:\n%s", out)
	}
}

// TestExplainPreemptionTimes: the preemption lines print their time as
// the rest of the CLI does (formatTime: the display zone, to the second),
// from the structured list; a master that sends only the lines has them
// printed as they came.
func TestExplainPreemptionTimes(t *testing.T) {
	fixClock(t)
	displayZone = time.FixedZone("CEST", 2*3600)
	at := time.Date(2024, 5, 1, 23, 30, 5, 0, time.UTC)
	tests := []struct {
		name      string
		lines     []string
		preempted []api.Preemption
		want      string
	}{
		{"structured", []string{"task 2 attempt 3 at 2024-05-01T23:30:05Z: moved: consolidation; exit: SIGTERM"},
			[]api.Preemption{{Task: 2, Attempt: 3, At: at, Why: "moved: consolidation; exit: SIGTERM"}},
			"task 2 attempt 3 at 2024-05-02 01:30:05: moved: consolidation; exit: SIGTERM"},
		{"lines only (an older master)", []string{"task 0 attempt 1 at 2024-05-01T09:00:00Z: by job 9"}, nil,
			"task 0 attempt 1 at 2024-05-01T09:00:00Z: by job 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.Preemptions, x.Preempted = tt.lines, tt.preempted
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "Preempted:\n  "+tt.want+"\n") {
				t.Errorf("output lacks %q:\n%s", tt.want, b.String())
			}
		})
	}
}

// TestExplainResized: an elastic task's resizes are listed under their
// own heading, not Preempted (trial k C1), and a job whose task is being
// resized reads resizing in the heading (C2).
func TestExplainResized(t *testing.T) {
	fixClock(t)
	displayZone = time.UTC
	at := time.Date(2024, 5, 1, 23, 30, 5, 0, time.UTC)
	x := fixtureExplanation()
	x.State, x.Position, x.Pending, x.WouldStart, x.Ahead = "running", 0, nil, nil, nil
	x.Preemptions, x.Preempted = nil, nil
	x.Resized = []api.Resize{{Task: 0, Attempt: 1, At: at, From: 4, To: 2, ForJob: 2, Why: "shrunk from 4 to 2 slots for job 2 (quota reclaim: ...)"},
		{Task: 0, Attempt: 2, At: at, From: 2, To: 4, Why: "grown from 2 to 4 slots"}}
	x.Resizing = &api.Resizing{Task: 0, Tasks: 1, From: 4, To: 2, ForJob: 3, Since: at}
	var b bytes.Buffer
	if err := printExplanation(&b, x); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"(resizing, pool ", "\nResized:\n  task 0 attempt 1 at 2024-05-01 23:30:05: shrunk from 4 to 2 slots for job 2 (quota reclaim: ...)\n" +
		"  task 0 attempt 2 at 2024-05-01 23:30:05: grown from 2 to 4 slots\n"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, b.String())
		}
	}
	if strings.Contains(b.String(), "Preempted:") {
		t.Errorf("resizes listed as preemptions:\n%s", b.String())
	}
}

// TestExplainCountsFromAsOf: the Start line and the must-end times count
// from the master's as_of, as the reason's countdown does, not from the
// client's clock read a moment later; without as_of (an older master),
// from the client's clock.
func TestExplainCountsFromAsOf(t *testing.T) {
	fixClock(t) // the client's clock: t0
	start := t0.Add(10 * time.Minute)
	tests := []struct {
		name  string
		asOf  time.Time
		start string // the Start line's countdown
	}{
		{"as of a second before the client's clock", t0.Add(-time.Second), "(in 10m 1s)"},
		{"as of the client's clock", t0, "(in 10m)"},
		{"no as_of", time.Time{}, "(in 10m)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.AsOf = tt.asOf
			x.Pending = &api.Pending{Reason: "reserved", Message: "head of the queue, needs 4 slots; reserved to start in 10m 1s",
				EstimatedStart: &start, EstimateBasis: "reservation"}
			x.WouldStart.MustEnd[0].EndsAt = &start
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(b.String(), tt.start); n != 2 {
				t.Errorf("%q %d times, want 2 (Start and the job that must end):\n%s", tt.start, n, b.String())
			}
		})
	}
}

// TestExplainAheadSlots: a job ahead with one slot reads "1 slot".
func TestExplainAheadSlots(t *testing.T) {
	x := fixtureExplanation()
	x.Ahead = []api.JobRef{{ID: 8, Name: "notebook", User: "admin", Slots: 1}, {ID: 3, Name: "bert", Slots: 8}}
	var b bytes.Buffer
	if err := printExplanation(&b, x); err != nil {
		t.Fatal(err)
	}
	if want := "Ahead:    8 notebook (admin, 1 slot); 3 bert (-, 8 slots)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, b.String())
	}
}

// TestExplainStartLine: the Start line says what allot jobs and the
// dashboard say of the same answer: a reservation's start as it is, a
// forecast marked as one, with its range when the master gives the
// early end (not only the late end, which would read as a promise).
func TestExplainStartLine(t *testing.T) {
	fixClock(t)
	late, early := t0.Add(2*time.Hour), t0.Add(time.Hour)
	at := func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }
	tests := []struct {
		name  string
		basis string
		early *time.Time
		want  string
	}{
		{"reservation", "reservation", nil, "Start:    " + at(late) + " (in 2h)\n"},
		{"forecast", "forecast", nil, "Start:    " + at(late) + " (in 2h), a forecast\n"},
		{"forecast with a range", "forecast", &early,
			"Start:    " + at(early) + " (in 1h) to " + at(late) + " (in 2h), a forecast\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.AsOf = t0
			x.Pending.EstimatedStart, x.Pending.EstimateBasis, x.Pending.EstimatedStartEarliest = &late, tt.basis, tt.early
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, b.String())
			}
		})
	}
}

// TestExplainStartWithoutEstimate: explain of a job the forecast gives no
// estimate has a Start line where it can say why (trial 2026-11-29a A2:
// it had none, though the docs promise it), as the dry run's has: the
// job without a time limit that must end, never, not before; none where
// the section below says it all (the jobs that must end have limits and
// could be preempted) or there is no counterfactual.
func TestExplainStartWithoutEstimate(t *testing.T) {
	fixClock(t)
	hour := t0.Add(time.Hour)
	tests := []struct {
		name string
		cf   *api.Counterfactual
		want string // "": no Start line
	}{
		{"a job without a limit must end", &api.Counterfactual{Nodes: []string{"n1"},
			MustEnd: []api.JobRef{{ID: 12, Slots: 6, EndsAt: &hour}, {ID: 4, Name: "bob-sleep", Slots: 2}}},
			"Start:    unknown (job 4, which must end for it, has no time limit)\n"},
		{"never", &api.Counterfactual{Never: "needs 16 slots, the largest node has 8"}, "Start:    never on today's nodes\n"},
		{"not before", &api.Counterfactual{Nodes: []string{"n1"}, MustEnd: []api.JobRef{{ID: 12, EndsAt: &hour}}, NotBefore: &hour},
			"Start:    not before "},
		{"the section says it", fixtureExplanation().WouldStart, ""},
		{"no counterfactual", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.AsOf, x.WouldStart = t0, tt.cf
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "Start:"); got != (tt.want != "") || !strings.Contains(b.String(), tt.want) {
				t.Errorf("output, want Start line %q:\n%s", tt.want, b.String())
			}
		})
	}
}

// TestWaitStartText: the Start line of a job with no estimate says why
// there is none, as the dashboard's job page does.
func TestWaitStartText(t *testing.T) {
	ends := t0.Add(time.Hour)
	tests := []struct {
		name string
		cf   *api.Counterfactual
		want string
	}{
		{"no counterfactual", nil, "unknown (a task without a time limit stands in the way)"},
		{"never", &api.Counterfactual{Never: "too big"}, "never on today's nodes"},
		{"a job without a limit must end", &api.Counterfactual{Nodes: []string{"n1"}, MustEnd: []api.JobRef{{ID: 6}}},
			"unknown (job 6, which must end for it, has no time limit)"},
		{"drained: nothing to name", &api.Counterfactual{Message: "its pool's nodes are drained"},
			"unknown: see what would let it start, below"},
		{"a preemptible job without a limit", &api.Counterfactual{Nodes: []string{"n1"},
			MustEnd: []api.JobRef{{ID: 2, Preempt: api.PreemptPossible}, {ID: 6, EndsAt: &ends}}},
			"unknown (a task without a time limit stands in the way)"},
		{"its own cap", &api.Counterfactual{Limit: "max_concurrent_trials is 4 and 4 of its trials run"},
			"unknown: when one of its own tasks ends (max_concurrent_trials is 4 and 4 of its trials run)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := waitStartText(&api.Pending{}, tt.cf, t0); got != tt.want {
				t.Errorf("waitStartText = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestExplainWouldStartWords: a counterfactual with no job to end prints
// the master's words: with no node to name (the pool's only nodes are
// drained), not an empty "it fits now on" line; with the slots free now,
// what holds the job back, not only that it fits (which read as a
// contradiction of the reason above it, "queued behind job 8").
func TestExplainWouldStartWords(t *testing.T) {
	drained := "It cannot start on the nodes up now: the pool's node dev-1 is drained; it waits for a resume (allot node resume) or another node."
	tests := []struct {
		name string
		cf   api.Counterfactual
		want string
	}{
		{"fits now", api.Counterfactual{Nodes: []string{"dgx-1"}, Message: "The slot it needs is free now on dgx-1."},
			"  The slot it needs is free now on dgx-1.\n"},
		{"fits now, but a rule holds it", api.Counterfactual{Nodes: []string{"gpu-b"},
			Message: "The slot it needs is free now on gpu-b, but job 8 before it is blocked and may not be passed."},
			"  The slot it needs is free now on gpu-b, but job 8 before it is blocked and\n  may not be passed.\n"},
		{"fits now, no words", api.Counterfactual{Nodes: []string{"dgx-1"}}, "  it fits now on dgx-1\n"},
		{"drained", api.Counterfactual{Message: drained},
			"  It cannot start on the nodes up now: the pool's node dev-1 is drained; it\n  waits for a resume (allot node resume) or another node.\n"},
		// The master leaves its own cap's sentence to this section (trial
		// 2026-11-29j J2): said here once, then the cap.
		{"its own cap", api.Counterfactual{Limit: "max_concurrent_trials is 4 and 4 of its trials run",
			Message: "It runs as many trials as its max_concurrent_trials (4) allows: the next starts when one of its own trials ends."},
			"  It runs as many trials as its max_concurrent_trials (4) allows: the next\n  starts when one of its own trials ends.\n  one of its own tasks ending: max_concurrent_trials is 4 and 4 of its trials run\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.WouldStart = &tt.cf
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "What would let it start now:\n"+tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, b.String())
			}
		})
	}
}

// TestExplainMustEndKinds: jobs that must end are told apart from ones
// that could be preempted instead, by a column where they differ; the
// Start line of a job the forecast gives no estimate says the soonest it
// could start there, or the job that must end and has no time limit.
func TestExplainMustEndKinds(t *testing.T) {
	fixClock(t)
	hour := t0.Add(time.Hour)
	at := hour.UTC().Format("2006-01-02 15:04")
	notebook := api.JobRef{ID: 6, Name: "notebook", User: "cy", Project: "vision", Slots: 2, EndsAt: &hour}
	grid := api.JobRef{ID: 2, Name: "train-grid", User: "bo", Project: "vision", Slots: 4, Preempt: api.PreemptPossible}
	tests := []struct {
		name      string
		refs      []api.JobRef
		notBefore *time.Time
		want      []string
	}{
		{"one must end, one could be preempted", []api.JobRef{notebook, grid}, &hour, []string{
			"  on dev-1, once these end or are preempted:\n",
			"WAIT FOR\n",
			"  6    notebook    cy    vision   2      " + at + " (in 1h)  its end\n",
			"  2    train-grid  bo    vision   4      no time limit             its end or preemption\n",
			"Start:      not before " + at + " (in 1h), when the jobs that must end reach their time limits",
		}},
		{"all could be preempted: no column", []api.JobRef{grid}, nil, []string{
			"  on dev-1, once these end or are preempted:\n",
			"SLOTS  LIMIT ENDS\n",
		}},
		{"one being preempted, one must end", []api.JobRef{{ID: 4, Name: "a", Slots: 1, Preempt: api.PreemptUnderWay},
			{ID: 5, Name: "b", Slots: 1}}, nil, []string{"its preemption\n", "its end\n",
			"Start:      unknown (job 5, which must end for it, has no time limit)\n"}},
		{"one being shrunk, one must end", []api.JobRef{{ID: 4, Name: "a", Slots: 1, Preempt: api.PreemptUnderWay,
			Resize: &api.SlotChange{From: 2, To: 1}}, {ID: 5, Name: "b", Slots: 1}}, nil, []string{"its shrink to 1 slot\n", "its end\n"}},
		{"all being shrunk", []api.JobRef{{ID: 4, Name: "a", Slots: 1, Preempt: api.PreemptUnderWay,
			Resize: &api.SlotChange{From: 2, To: 1}}}, nil, []string{"  on dev-1, once these are resized:\n", " 2 → 1  "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := api.DryRun{Accepted: true, Name: "big", Pool: "research", Tasks: 1, Slots: 4, AsOf: t0,
				Pending:    &api.Pending{Reason: "no_capacity", Message: "needs 4 slots per task, 0 are free in the pool"},
				WouldStart: &api.Counterfactual{Nodes: []string{"dev-1"}, MustEnd: tt.refs, NotBefore: tt.notBefore, Message: "m"}}
			var b bytes.Buffer
			if err := printDryRun(&b, d); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
			if len(tt.refs) == 1 && strings.Contains(b.String(), "WAIT FOR") {
				t.Errorf("a WAIT FOR column for one kind of job:\n%s", b.String())
			}
		})
	}
}

// TestDryRunPreemptsNoWouldStart: a dry run that would preempt its way
// in does not also print what would let it start, which would contradict
// it, even from a master that sends it.
func TestDryRunPreemptsNoWouldStart(t *testing.T) {
	fixClock(t)
	for _, tt := range []struct {
		name     string
		preempts []api.DryRunVictim
		want     bool
	}{
		{"would wait", nil, true},
		{"would preempt", []api.DryRunVictim{{Job: 2, Name: "train-grid", Tasks: 2, Slots: 2, Why: "priority 10 runs before the preempted job's 80"}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := api.DryRun{Accepted: true, Name: "big", Pool: "research", Tasks: 1, Slots: 4, AsOf: t0, Preempts: tt.preempts,
				Pending: &api.Pending{Reason: "checkpointing", Message: "waiting for the preempted tasks to checkpoint"},
				WouldStart: &api.Counterfactual{Nodes: []string{"dev-1"}, Message: "It could start on dev-1 once job 2 is preempted.",
					MustEnd: []api.JobRef{{ID: 2, Name: "train-grid", Slots: 2, Preempt: api.PreemptUnderWay}}}}
			var b bytes.Buffer
			if err := printDryRun(&b, d); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "What would let it start now"); got != tt.want {
				t.Errorf("what would let it start printed %v, want %v:\n%s", got, tt.want, b.String())
			}
		})
	}
}

// TestExplainPrivateRefs: a job the master redacted (api.JobRef.Private:
// no name, no user) reads as another project's job in every table and
// line that names jobs, with no empty column and no "null"; so does a
// blocker the master marked private (api.Pending.BlockedByPrivate).
func TestExplainPrivateRefs(t *testing.T) {
	fixClock(t)
	x := fixtureExplanation()
	blocked := &api.Pending{Reason: "behind", Message: "waits behind job 7", BlockedBy: 7, BlockedByPrivate: true}
	x.Pending = blocked
	x.Ahead = []api.JobRef{{ID: 3, Slots: 8, Private: true}, {ID: 5, Name: "mine", User: "ann", Slots: 2}}
	x.WouldStart.MustEnd = []api.JobRef{{ID: 1, Project: "nlp", Slots: 4, Private: true}}
	d := api.DryRun{Accepted: true, Name: "big", Pool: "research", Tasks: 1, Slots: 4, AsOf: t0,
		Preempts: []api.DryRunVictim{{Job: 2, Tasks: 1, Slots: 4, Why: "priority 10 runs before the preempted job's 80", Private: true}},
		Pending:  blocked}
	for _, tt := range []struct {
		name  string
		print func(*bytes.Buffer) error
		want  []string
	}{
		{"explain", func(b *bytes.Buffer) error { return printExplanation(b, x) }, []string{
			"Ahead:    3 (another project's job, 8 slots); 5 mine (ann, 2 slots)\n",
			"  1    (another project's job)  -     nlp      4      ",
			"Blocked:  by job 7 (another project's job)\n"}},
		{"dry run", func(b *bytes.Buffer) error { return printDryRun(b, d) }, []string{
			"  2    (another project's job)  -     1      4      priority 10",
			"Blocked:    by job 7 (another project's job)\n"}},
		{"job show", func(b *bytes.Buffer) error { _, err := b.WriteString(pendingText(blocked)); return err }, []string{
			"(blocked by job 7 (another project's job))"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.print(&b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("no %q in:\n%s", w, b.String())
				}
			}
			if strings.Contains(b.String(), "null") || strings.Contains(b.String(), "3  (") {
				t.Errorf("an empty name or null:\n%s", b.String())
			}
		})
	}
}

// TestExplainStartFirst: the jobs the pool's order serves first are
// printed after those that must end, as taking some of what they free,
// or, where no end alone would start the job, after the master's words,
// as what it waits behind; a job the caller may not read is unnamed, and
// the quota is said once.
func TestExplainStartFirst(t *testing.T) {
	fixClock(t)
	end := t0.Add(40 * time.Minute)
	first := []api.JobRef{{ID: 3, Name: "bert", User: "bo", Project: "vision", Slots: 4}, {ID: 7, Project: "nlp", Slots: 2, Private: true}}
	tests := []struct {
		name string
		cf   api.Counterfactual
		want []string
		once string
	}{
		{"with jobs that must end", api.Counterfactual{Nodes: []string{"q1"}, StartFirst: first,
			MustEnd: []api.JobRef{{ID: 1, Name: "resnet", User: "ann", Project: "vision", Slots: 2, EndsAt: &end},
				{ID: 2, Name: "gpt", User: "ann", Project: "vision", Slots: 4, EndsAt: &end}},
			Message: "It could start on q1 once jobs 1 and 2 end: jobs 3 and 7 would take some of what they free (the pool's order serves them first)."},
			[]string{"  on q1, once these end:\n",
				"  the pool's order serves these first, taking some of what they free:\n",
				"  3    bert                     bo    vision   4\n",
				"  7    (another project's job)  -     nlp      2\n"}, ""},
		// B8: a job on another node must end for the jobs served first,
		// not to free q2: it is not listed under q2.
		{"one that must end elsewhere", api.Counterfactual{Nodes: []string{"q2"}, StartFirst: first,
			MustEnd: []api.JobRef{{ID: 1, Name: "resnet", User: "ann", Project: "vision", Slots: 2, EndsAt: &end, RunsOn: []string{"q1"}},
				{ID: 2, Name: "gpt", User: "ann", Project: "vision", Slots: 4, EndsAt: &end}},
			Message: "It could start on q2 once job 2 ends there and, on q1, job 1 ends for the jobs the pool serves before it: jobs 3 and 7 would take some of what they free (the pool's order serves them first)."},
			[]string{"  on q2, once these end:\n  JOB  NAME  USER  PROJECT  SLOTS  LIMIT ENDS\n  2    gpt ",
				"\n  and on q1, for the jobs the pool serves before it, once these end:\n  JOB  NAME    USER  PROJECT  SLOTS  LIMIT ENDS\n  1    resnet ",
				"  the pool's order serves these first, taking some of what they free:\n"}, ""},
		{"whatever ends", api.Counterfactual{StartFirst: first, Quota: "Its project vision holds 4 of its quota of 4.",
			Message: "No running job's end alone would start it now: were all of pool research's running jobs to end, the pool's order would serve jobs 3 and 7 first, and it would still wait. Its project vision holds 4 of its quota of 4."},
			[]string{"  No running job's end alone would start it now",
				"  the pool's order serves these first, whatever ends:\n", "  3    bert"},
			"Its project vision holds 4 of its quota of 4."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.WouldStart = &tt.cf
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in:\n%s", w, out)
				}
			}
			if tt.once != "" && strings.Count(out, tt.once) != 1 {
				t.Errorf("%q %d times, want once in the section:\n%s", tt.once, strings.Count(out, tt.once), out)
			}
		})
	}
}

// TestDryRunResizes: a dry run that would shrink a running elastic task
// lists it (Would resize: from and to slots, why), and not what would
// let it start, as for one that would preempt.
func TestDryRunResizes(t *testing.T) {
	fixClock(t)
	d := api.DryRun{Accepted: true, Name: "bob", Pool: "fs", Tasks: 1, Slots: 1, AsOf: t0,
		Summary:    "It would be accepted in pool fs as the 1st of 1 waiting. It would shrink job 15 from 2 slots to 1 and start once its checkpoint has landed.",
		Pending:    &api.Pending{Reason: "checkpointing", Message: "slots were freed by preemption"},
		Resizes:    []api.DryRunResize{{Job: 15, Name: "el", User: "alice", From: 2, To: 1, Why: "fair share: ..."}},
		WouldStart: &api.Counterfactual{Message: "It could start on n2 once job 15 shrinks to 1 slot and checkpoints."}}
	var b bytes.Buffer
	if err := printDryRun(&b, d); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"\nWould resize:\n", "  JOB  NAME  USER   SLOTS  WHY\n", "  15   el    alice  2 → 1  fair share: ...\n"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, b.String())
		}
	}
	if strings.Contains(b.String(), "What would let it start now") {
		t.Errorf("what would let it start, next to the shrink it waits for:\n%s", b.String())
	}
}

// TestExplainLost: attempts lost with their nodes are listed under their
// own heading after the preemptions, which do not list them (trial o F18).
func TestExplainLost(t *testing.T) {
	fixClock(t)
	displayZone = time.UTC
	at := time.Date(2024, 5, 1, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		name string
		lost []api.Preemption
		want string // "" for no heading
	}{
		{"none", nil, ""},
		{"one", []api.Preemption{{Task: 0, Attempt: 2, At: at, Why: "node r2 lost: no contact for 31s"}},
			"\nLost with their nodes:\n  task 0 attempt 2 at 2024-05-01 09:30:00: node r2 lost: no contact for 31s\n"},
		{"fenced before the loss", []api.Preemption{{Task: 0, Attempt: 2, At: at, Why: "node r2 lost: no contact for 31s",
			ExitedAt: func() *time.Time { x := at.Add(-11 * time.Second); return &x }(), Stopped: "fenced by its task shim, checkpoint requested"}},
			"\nLost with their nodes:\n  task 0 attempt 2 at 2024-05-01 09:30:00: node r2 lost: no contact for 31s; " +
				"it had stopped at 09:29:49, 11s before (fenced by its task shim, checkpoint requested)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.Lost = tt.lost
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if got := strings.Contains(out, "Lost with their nodes:"); got != (tt.want != "") || !strings.Contains(out, tt.want) {
				t.Errorf("output, want %q:\n%s", tt.want, out)
			}
			if !strings.Contains(out, "Preempted:\n  task 0 attempt 1 ") {
				t.Errorf("the preemption is no longer listed:\n%s", out)
			}
		})
	}
}

// TestJobExplainAlias (trial 2026-11-29b B7): allot job explain ID is
// allot explain ID, in every output format, as every other verb on one
// job is under allot job; before, the ID read as allot job's own
// argument ("unexpected argument").
func TestJobExplainAlias(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"table", nil},
		{"json", []string{"-o", "json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMaster(t)
			want, _, err := runAt(t, f, append([]string{"explain", "5"}, tt.args...)...)
			if err != nil || want == "" {
				t.Fatalf("allot explain 5: %v\n%s", err, want)
			}
			got, errOut, err := runAt(t, f, append([]string{"job", "explain", "5"}, tt.args...)...)
			if err != nil || got != want {
				t.Errorf("allot job explain 5: %v %s\n%s\nwant allot explain 5's:\n%s", err, errOut, got, want)
			}
		})
	}
}

// TestExplainRequeuedTwice: the master's one sentence for a job
// requeued twice prints whole in the summary, wrapped, and under no
// Preempted heading (a requeue is no preemption).
func TestExplainRequeuedTwice(t *testing.T) {
	tests := []struct {
		name, requeued string
	}{
		{"one task", "Its task 0 was requeued twice, each time to resume from its checkpoint if it wrote one: by ana at 2026-05-01 12:02 UTC " +
			"(attempt 1) and by lee at 2026-05-01 12:04 UTC (attempt 2)."},
		{"two tasks", "Its tasks were requeued twice, each time to resume from their checkpoints if they wrote them: by ana at 2026-05-01 12:00 UTC " +
			"(task 0 attempt 1 and task 1 attempt 1) and by bob at 2026-05-01 12:04 UTC (task 0 attempt 2)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.Preemptions, x.Preempted = nil, nil
			x.Summary += " " + tt.requeued
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			para, _, _ := strings.Cut(strings.SplitN(out, "\n\n", 2)[1], "\n\n")
			if got := strings.Join(strings.Fields(para), " "); !strings.HasSuffix(got, tt.requeued) {
				t.Errorf("summary paragraph %q, want it to end with %q", para, tt.requeued)
			}
			for _, line := range strings.Split(para, "\n") {
				if len(line) > 76 {
					t.Errorf("summary line of %d characters: %q", len(line), line)
				}
			}
			if strings.Contains(out, "Preempted:") {
				t.Errorf("a requeue listed as a preemption:\n%s", out)
			}
		})
	}
}

// TestExplainHeadingHeld (trial 2026-11-29c C4): the explanation of a
// held job is headed held, as allot jobs shows it, not queued.
func TestExplainHeadingHeld(t *testing.T) {
	for _, tt := range []struct {
		name, reason, want string
	}{
		{"held", "held", "Job 4 (held, pool shared, multifactor)\n"},
		{"queued", "no_free_slots", "Job 4 (queued, pool shared, multifactor)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			x := api.Explanation{Job: 4, State: "queued", Pool: "shared", Policy: "multifactor", Summary: "s",
				Pending: &api.Pending{Reason: tt.reason}}
			if err := printExplanation(&b, x); err != nil || !strings.HasPrefix(b.String(), tt.want) {
				t.Errorf("%v\n%s\nwant it headed %q", err, b.String(), tt.want)
			}
		})
	}
}

// TestExplainNeverSaidOnce (trial 2026-11-29f F3): the sentence of why a
// job can never start, which the summary says in full, is not printed a
// second time under what would let it start; one the summary does not
// say is.
func TestExplainNeverSaidOnce(t *testing.T) {
	const never = "job 1 (over-limit) can never start: a task of 4 slots is over its project teamb's limit of 3 in pool q"
	for _, tt := range []struct {
		name    string
		summary string
		want    int // times never is printed
	}{
		{"the summary says it", "It is 1st of 1 waiting in pool q. It cannot start: " + never + ".", 1},
		{"the summary does not", "It is 1st of 1 waiting in pool q.", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := fixtureExplanation()
			x.Summary = tt.summary
			x.WouldStart = &api.Counterfactual{Never: never, Message: "It cannot start: " + never + "."}
			var b bytes.Buffer
			if err := printExplanation(&b, x); err != nil {
				t.Fatal(err)
			}
			// The summary is wrapped; count the unwrapped words.
			if got := strings.Count(strings.Join(strings.Fields(b.String()), " "), never); got != tt.want {
				t.Errorf("said %d times, want %d:\n%s", got, tt.want, b.String())
			}
			if !strings.Contains(b.String(), "nothing on today's nodes") {
				t.Errorf("no 'nothing on today's nodes':\n%s", b.String())
			}
		})
	}
}
