package web

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

func TestJobDetailShowsAttemptsAndPreemption(t *testing.T) {
	f := newFixture()
	p := openPage(t, f, "#/jobs/1", wide)
	pre := p.waitText(`#attempts tbody[data-task="1"] tr[data-attempt="1"]`, "preempted")
	for _, want := range []string{"gpu-a2: GPU 0, 1, 2, 3", "143", "preempted for job 2"} {
		if !strings.Contains(pre, want) {
			t.Errorf("preempted attempt row = %q, want %q", pre, want)
		}
	}
	if cls := evalJS[string](p, `document.querySelector('#attempts tbody[data-task="1"] tr[data-attempt="1"]').className`); cls != "ended-preempted" {
		t.Errorf("preempted attempt row class = %q, want ended-preempted", cls)
	}
	second := p.waitText(`#attempts tbody[data-task="1"] tr[data-attempt="2"]`, "running")
	if !strings.Contains(second, "gpu-a1: GPU 4, 5, 6, 7") {
		t.Errorf("second attempt = %q, want it on gpu-a1 GPUs 4-7", second)
	}
	fields := p.waitText("#fields", "2 running of 2")
	for _, want := range []string{"vision", "python train.py", "EPOCHS=10", "yes"} {
		if !strings.Contains(fields, want) {
			t.Errorf("fields = %q, want %q", fields, want)
		}
	}
	if hidden := evalJS[bool](p, `document.getElementById('why').hidden`); !hidden {
		t.Errorf("a running job shows a pending explanation")
	}
}

// TestJobDetailShowsLostNode: while a task is held on a lost node, the
// job's reason (beside its state) and the task's open attempt say which
// node is lost since when and when the task fails unless it returns.
func TestJobDetailShowsLostNode(t *testing.T) {
	f := newFixture()
	lost := "node gpu-a1 lost since 2026-05-01 12:00:32 UTC: the task fails at 2026-05-01 12:05:32 UTC unless the node returns (lost_node_grace 5m)"
	f.mu.Lock()
	f.jobs[0].Reason = lost
	f.jobs[0].TaskList[0].Reason = lost
	f.mu.Unlock()
	p := openPage(t, f, "#/jobs/1", wide)
	cases := []struct{ name, sel string }{
		{"job state", "#fields"},
		{"open attempt", `#attempts tbody[data-task="0"] tr[data-attempt="1"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p.sub(t).waitText(c.sel, lost)
		})
	}
	// The other task's open attempt has no such reason.
	if row := p.waitText(`#attempts tbody[data-task="1"] tr[data-attempt="2"]`, "running"); strings.Contains(row, "lost") {
		t.Errorf("task 1's open attempt = %q, want no loss", row)
	}
}

// TestOverviewShowsGPUsOfUnreadableJobsHeld: a GPU that a job the viewer
// may not read holds (its /jobs leave the job out; the node's used_gpus
// list the GPU) shows as in use by another project's job, not free, and
// names neither the job nor its user.
func TestOverviewShowsGPUsOfUnreadableJobsHeld(t *testing.T) {
	f := newFixture()
	f.jobs = slices.DeleteFunc(f.jobs, func(j *api.Job) bool { return j.ID == 2 }) // nlp's bert-finetune
	p := openPage(t, f, "#/", wide)
	p.waitFor(`document.querySelectorAll('#ov-nodes .gpu.other').length === 4`, "four GPUs held by another project's job")
	cells := evalJS[[]string](p, `[...document.querySelectorAll('[data-node="gpu-a2"] .gpu')].map(c => c.innerText.replace(/\s+/g, ' ').trim() + ' | ' + c.title)`)
	want := []string{"0 in use | GPU 0 (A100): in use by another project's job", "1 in use | GPU 1 (A100): in use by another project's job",
		"2 in use | GPU 2 (A100): in use by another project's job", "3 in use | GPU 3 (A100): in use by another project's job",
		"4 free | GPU 4 (A100): free", "5 free | GPU 5 (A100): free", "6 free | GPU 6 (A100): free", "7 free | GPU 7 (A100): free"}
	if !slices.Equal(cells, want) {
		t.Errorf("gpu-a2's cells = %q\nwant %q", cells, want)
	}
	if head := p.waitText(`[data-node="gpu-a2"] .node-head`, "4/8 used"); !strings.Contains(head, "4/8 used") {
		t.Errorf("gpu-a2's head = %q", head)
	}
	legend := p.waitText(".legend", "held by jobs of projects you cannot read")
	for _, s := range []string{"#1 resnet-sweep", "In use: 4 GPUs"} {
		if !strings.Contains(legend, s) {
			t.Errorf("legend = %q, want %q", legend, s)
		}
	}
	if page := p.text(); strings.Contains(page, "bert-finetune") || strings.Contains(page, "#2") {
		t.Errorf("the overview names job 2:\n%s", page)
	}
}

// TestJobDetailNamesPrivateJobByNumber: a job that must end which the
// viewer may not read (private: no name, no user) shows its number, not
// a link to a page it may not open, and "another project's job".
func TestJobDetailNamesPrivateJobByNumber(t *testing.T) {
	f := newFixture()
	f.privateRefs = true
	p := openPage(t, f, "#/jobs/3", wide)
	row := p.waitText(`#would-start [data-must-end="2"]`, "another project's job")
	if strings.Contains(row, "bert") || strings.Contains(row, "bo") || !strings.Contains(row, "#2") {
		t.Errorf("must-end row = %q, want #2, another project's job, no name or user", row)
	}
	if n := evalJS[int](p, `document.querySelectorAll('#why a[href="#/jobs/2"]').length`); n != 0 {
		t.Errorf("%d links to the private job 2, want none", n)
	}
}

// TestBlockerOfAnotherProject: a blocker the viewer may not read (the
// master says blocked_by_private) shows as its number and "another
// project's job" on the job's page and in the jobs list, with no link to
// a page that would answer 403.
func TestBlockerOfAnotherProject(t *testing.T) {
	cases := []struct{ name, hash, sel string }{
		{"job page", "#/jobs/4", "#blocked-by"},
		{"jobs list", "#/jobs", `#jobs tr[data-job="4"] td.why`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.mu.Lock()
			f.jobs[3].Pending.BlockedByPrivate = true // job 4, blocked by job 3
			f.mu.Unlock()
			p := openPage(t, f, c.hash, wide)
			p.waitText(c.sel, "#3 (another project's job)")
			if n := evalJS[int](p, fmt.Sprintf(`document.querySelectorAll('%s a[href="#/jobs/3"]').length`, c.sel)); n != 0 {
				t.Errorf("%d links to the private job 3, want none", n)
			}
		})
	}
}

// TestJobDetailHoldsHeaderWithoutNode: where its project's quota binds,
// the counterfactual names no node, and the Slots column's tooltip says
// the jobs hold the slots in the pool, not "on " and nothing.
func TestJobDetailHoldsHeaderWithoutNode(t *testing.T) {
	f := newFixture()
	f.mu.Lock()
	f.wouldStart = map[int64]*api.Counterfactual{3: {
		MustEnd: []api.JobRef{{ID: 2, Name: "bert-finetune", User: "bo", Project: "nlp", Slots: 4, EndsAt: atp(40 * time.Minute)}},
		Message: "Only project nlp's own work in pool a100 ending would start it, not other projects': it could start once job 2 ends, or once the project's quota is raised."}}
	f.mu.Unlock()
	p := openPage(t, f, "#/jobs/3", wide)
	p.waitFor(`document.querySelector('#would-start thead') !== null`, "the counterfactual's table")
	title := evalJS[string](p, `[...document.querySelectorAll('#would-start th')].find(th => th.innerText === 'Slots').title`)
	if title != "What it holds in pool a100" {
		t.Errorf("Slots tooltip = %q, want %q", title, "What it holds in pool a100")
	}
}

func TestJobDetailExplainsWhyItWaits(t *testing.T) {
	cases := []struct {
		name, hash string
		want       []string
		blocker    string
		estimate   bool
	}{
		{"would delay", "#/jobs/4", []string{"would_delay", "fits now but would delay the reservation of job 3",
			"2 in the queue of pool a100", "Estimated start\nunknown (a task without a time limit stands in the way)"}, "#/jobs/3", false},
		{"reserved", "#/jobs/3", []string{"What would let it start now", "head of the queue", "1 in the queue of pool a100",
			"once job 2 ends", "bert-finetune", "orders its queue by priority"}, "#/jobs/2", true},
		{"drained", "#/jobs/7", []string{"What would let it start now", "Blocked by\nno running job: see what would let it start, below",
			"node gpu-t1 is drained; it waits for a resume", "Estimated start\nunknown: see what would let it start, below"}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := openPage(t, newFixture(), c.hash, wide)
			why := p.waitText("#why", c.want[0])
			for _, w := range c.want[1:] {
				if !strings.Contains(why, w) {
					t.Errorf("explanation = %q, want %q", why, w)
				}
			}
			href := evalJS[string](p, `document.querySelector('#why a')?.getAttribute('href') || ''`)
			if href != c.blocker {
				t.Errorf("blocker link = %q, want %q", href, c.blocker)
			}
			hasTime := evalJS[bool](p, `!!document.querySelector('#estimated-start time')`)
			if hasTime != c.estimate {
				t.Errorf("estimated start shown as a time: %v, want %v", hasTime, c.estimate)
			}
		})
	}
}

// TestJobDetailSaysWhatMustEnd: without an estimate, the job's page says
// as allot explain does when it could start (not_before) or which job
// that must end has no time limit, and tells the jobs that must end from
// those that could be preempted where both stand in its way.
func TestJobDetailSaysWhatMustEnd(t *testing.T) {
	resnet := api.JobRef{ID: 1, Name: "resnet-sweep", User: "al", Project: "vision", Slots: 8, EndsAt: atp(time.Hour)}
	bert := api.JobRef{ID: 2, Name: "bert-finetune", User: "bo", Project: "nlp", Slots: 4, EndsAt: atp(40 * time.Minute),
		Preempt: api.PreemptPossible}
	endless := resnet
	endless.EndsAt = nil
	stopping := bert
	stopping.Preempt = api.PreemptUnderWay
	shrinking := stopping
	shrinking.Resize = &api.SlotChange{From: 8, To: 4}
	deadline := stopping
	deadline.CheckpointBy = atp(20 * time.Second)
	cases := []struct {
		name    string
		cf      api.Counterfactual
		start   string
		rows    map[string][]string // data-must-end → the row's words
		waitFor map[string]string   // data-must-end → its Wait for cell; nil: no such column
	}{
		{"must end and could be preempted, not before",
			api.Counterfactual{Nodes: []string{"gpu-a1"}, MustEnd: []api.JobRef{bert, resnet}, NotBefore: atp(time.Hour),
				Message: "It could start on gpu-a1 once job 1 (resnet-sweep) ends and job 2 (bert-finetune) ends or is preempted."},
			"not before in 1h (", map[string][]string{
				"1": {"resnet-sweep", "vision", "8", "in 1h ("},
				"2": {"bert-finetune", "nlp", "4", "in 40m ("}},
			map[string]string{"1": "its end", "2": "its end or preemption"}},
		{"one that must end has no time limit",
			api.Counterfactual{Nodes: []string{"gpu-a1"}, MustEnd: []api.JobRef{bert, endless},
				Message: "It could start on gpu-a1 once job 1 (resnet-sweep) ends and job 2 (bert-finetune) ends or is preempted."},
			"unknown (job 1, which must end for it, has no time limit)", map[string][]string{
				"1": {"no time limit"}, "2": {"in 40m ("}},
			map[string]string{"1": "its end", "2": "its end or preemption"}},
		{"only being preempted",
			api.Counterfactual{Nodes: []string{"gpu-a2"}, MustEnd: []api.JobRef{stopping},
				Message: "It could start on gpu-a2 once job 2 (bert-finetune) is preempted."},
			"unknown (a task without a time limit stands in the way)", map[string][]string{"2": {"bert-finetune", "in 40m ("}}, nil},
		// Its checkpoint's deadline, not its time limit (trial F16).
		{"being preempted, by its deadline",
			api.Counterfactual{Nodes: []string{"gpu-a2"}, MustEnd: []api.JobRef{deadline},
				Message: "It could start on gpu-a2 once job 2 (bert-finetune) is preempted."},
			"unknown (a task without a time limit stands in the way)", map[string][]string{"2": {"bert-finetune", "in 20s ("}}, nil},
		{"one shrinking, one must end",
			api.Counterfactual{Nodes: []string{"gpu-a1"}, MustEnd: []api.JobRef{shrinking, resnet}, NotBefore: atp(time.Hour),
				Message: "It could start on gpu-a1 once job 1 ends and job 2 shrinks to 4 slots and checkpoints."},
			"not before in 1h (", map[string][]string{"2": {"bert-finetune"}},
			map[string]string{"1": "its end", "2": "its shrink to 4 slots"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.mu.Lock()
			f.jobs[2].Pending.EstimatedStart = nil
			f.wouldStart = map[int64]*api.Counterfactual{3: &c.cf}
			f.mu.Unlock()
			p := openPage(t, f, "#/jobs/3", wide)
			// The explanation first: until it comes, the start says the
			// generic unknown, which one case expects too.
			p.waitFor("document.querySelector('#would-start p') !== null", "the explanation's counterfactual")
			start := p.waitText("#estimated-start", c.start)
			if c.cf.NotBefore != nil && !strings.Contains(start, "when the jobs that must end reach their time limits") {
				t.Errorf("estimated start = %q, want the reason for not before", start)
			}
			if got := evalJS[string](p, `document.querySelector('#would-start p').innerText`); got != c.cf.Message {
				t.Errorf("would start = %q, want the master's message %q", got, c.cf.Message)
			}
			head := evalJS[string](p, `document.querySelector('#would-start thead').innerText`)
			ends := "Limit ends"
			if c.cf.MustEnd[0].CheckpointBy != nil {
				ends = "Checkpoint by"
			}
			if !strings.Contains(head, ends) || strings.Contains(head, "Wait for") != (c.waitFor != nil) {
				t.Errorf("header = %q, want %s and Wait for: %v", head, ends, c.waitFor != nil)
			}
			for id, words := range c.rows {
				row := evalJS[string](p, fmt.Sprintf(`document.querySelector('#would-start tr[data-must-end="%s"]')?.innerText || ''`, id))
				for _, w := range words {
					if !strings.Contains(row, w) {
						t.Errorf("row of job %s = %q, want %q", id, row, w)
					}
				}
			}
			for id, want := range c.waitFor {
				got := evalJS[string](p, fmt.Sprintf(`document.querySelector('#would-start tr[data-must-end="%s"] td.wait-for')?.innerText || ''`, id))
				if got != want {
					t.Errorf("wait for of job %s = %q, want %q", id, got, want)
				}
			}
		})
	}
}

// TestJobDetailCountsEstimateFromAsOf: the estimated start counts from
// the master's as_of, as the message beside it does, not from the
// browser's clock; without as_of it falls back to the browser's clock.
func TestJobDetailCountsEstimateFromAsOf(t *testing.T) {
	cases := []struct {
		name string
		asOf *time.Time
		want string
	}{
		{"as_of half an hour before the browser", atp(-30 * time.Minute), "in 1h 10m ("},
		{"no as_of", nil, "in 40m"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.mu.Lock()
			f.jobs[2].Pending.AsOf = c.asOf
			if c.asOf == nil {
				// Counted from the browser's clock: from now, not from the
				// fixture's anchor, which earlier tests leave behind. The
				// page counts whole seconds, as the command line does:
				// half a minute over keeps "in 40m" for a page up to
				// 30 s slow.
				start := time.Now().Add(40*time.Minute + 30*time.Second)
				f.jobs[2].Pending.EstimatedStart = &start
			}
			f.mu.Unlock()
			p := openPage(t, f, "#/jobs/3", wide)
			p.waitText("#estimated-start", "in ")
			if got := evalJS[string](p, `document.querySelector('#estimated-start time').innerText`); !strings.HasPrefix(got, c.want) {
				t.Errorf("estimated start = %q, want it to start with %q", got, c.want)
			}
		})
	}
}

// TestJobDetailReadsBackHints: the job's Details list the job file's
// scheduling hints it sets and what its tasks hold now, as allot job show
// does, and nothing for the hints it leaves unset.
func TestJobDetailReadsBackHints(t *testing.T) {
	f := newFixture()
	f.mu.Lock()
	j := f.jobs[0] // job 1
	j.Slots, j.MinSlots, j.Holding, j.MaxSlots = 4, 2, 2, 8
	j.GPU, j.Licenses, j.QOS, j.Nice, j.CheckpointEvery = "h100", map[string]int{"matlab": 1}, "urgent", 5, 600
	f.mu.Unlock()
	p := openPage(t, f, "#/jobs/1", wide)
	got := p.waitText("#fields", "Holding")
	for _, want := range []string{"4 (elastic down to 2)", "2 GPUs now", "8 in all", "h100", "matlab: 1 per task", "urgent", "Checkpoint every\n10m"} {
		if !strings.Contains(got, want) {
			t.Errorf("details %q lack %q", got, want)
		}
	}
	p.goTo("#/jobs/2")
	if got := p.waitText("#fields", "Slots per task"); strings.Contains(got, "Holding") || strings.Contains(got, "Licenses") {
		t.Errorf("details of a job without hints show some: %q", got)
	}
}

// TestJobDetailStartFirst: the jobs the pool's order serves first
// (start_first) are named in Blocked by after the jobs that must end, or
// alone where no end alone would start the job, and listed below the
// counterfactual's message; one the viewer may not read shows its number
// without a link.
func TestJobDetailStartFirst(t *testing.T) {
	ahead := api.JobRef{ID: 4, Name: "gpt-pretrain", User: "cy", Project: "vision", Slots: 4}
	private := api.JobRef{ID: 6, Project: "nlp", Slots: 2, Private: true}
	cases := []struct {
		name    string
		cf      api.Counterfactual
		blocked string
		heading string
	}{
		{"with a job that must end",
			api.Counterfactual{Nodes: []string{"gpu-a2"}, StartFirst: []api.JobRef{ahead, private},
				MustEnd: []api.JobRef{{ID: 2, Name: "bert-finetune", User: "bo", Slots: 4}},
				Message: "It could start on gpu-a2 once job 2 ends: jobs 4 and 6 would take some of what they free (the pool's order serves them first)."},
			"job 2; served first: job 4, #6", "taking some of what they free"},
		{"whatever ends",
			api.Counterfactual{StartFirst: []api.JobRef{ahead, private},
				Message: "No running job's end alone would start it now: were all of pool a100's running jobs to end, the pool's order would serve jobs 4 and 6 first, and it would still wait."},
			"jobs served first: job 4, #6", "whatever ends"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.mu.Lock()
			f.wouldStart = map[int64]*api.Counterfactual{3: &c.cf}
			f.mu.Unlock()
			p := openPage(t, f, "#/jobs/3", wide)
			p.waitText("#would-start", c.cf.Message)
			if got := p.waitText("#blocked-by", "served first"); got != c.blocked {
				t.Errorf("blocked by %q, want %q", got, c.blocked)
			}
			if head := p.waitText("#start-first p", c.heading); !strings.Contains(head, c.heading) {
				t.Errorf("start first heading %q, want %q", head, c.heading)
			}
			if row := p.waitText(`#start-first tr[data-start-first="4"]`, "gpt-pretrain"); !strings.Contains(row, "cy") {
				t.Errorf("row of job 4 = %q, want its user", row)
			}
			if row := p.waitText(`#start-first tr[data-start-first="6"]`, "another project's job"); !strings.Contains(row, "#6") {
				t.Errorf("row of job 6 = %q, want #6", row)
			}
			if n := evalJS[int](p, `document.querySelectorAll('#why a[href="#/jobs/6"]').length`); n != 0 {
				t.Errorf("%d links to the private job 6, want none", n)
			}
		})
	}
}

// TestJobDetailNeverSaysItOnce: a job that can never run on today's nodes
// is told why under What would let it start; Blocked by says there is no
// job to wait for without a third copy of the sentence.
func TestJobDetailNeverSaysItOnce(t *testing.T) {
	never := "a task needs 16 slots, but the slots of pool a100 add up to 8"
	f := newFixture()
	f.mu.Lock()
	f.wouldStart = map[int64]*api.Counterfactual{3: {Never: never, Message: "It can never run: " + never + "."}}
	f.mu.Unlock()
	p := openPage(t, f, "#/jobs/3", wide)
	p.waitText("#would-start", never)
	if got := p.waitText("#blocked-by", "no job"); got != "no job: it cannot run on today's nodes" {
		t.Errorf("blocked by %q, want no job without the sentence again", got)
	}
}

// TestJobDetailPreemptedBy: a preempted attempt's reason names the job
// that preempted it, linked, with its user and name, and the rule; one
// the viewer may not read by number alone, with no link that would lead
// to a refusal; and then how the attempt ended.
func TestJobDetailPreemptedBy(t *testing.T) {
	why := "preempted for job 2 (priority 20 runs before the preempted job's 42)"
	for _, tc := range []struct {
		name    string
		by      api.PreemptedBy
		want    string
		linkArg bool
	}{
		{"readable", api.PreemptedBy{Job: 2, Reason: "priority", Why: why, User: "bob", Name: "bert-finetune", Project: "nlp"},
			"preempted for job 2 (bob, bert-finetune) (priority 20 runs before the preempted job's 42); checkpointed after preemption", true},
		{"private", api.PreemptedBy{Job: 2, Reason: "priority", Why: why, Project: "nlp", Private: true},
			"preempted for #2 (another project's job) (priority 20 runs before the preempted job's 42); checkpointed after preemption", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			a := &f.jobs[0].TaskList[1].Attempts[0]
			a.Reason, a.PreemptedBy = "checkpointed after preemption", &tc.by
			p := openPage(t, f, "#/jobs/1", wide)
			sel := `#attempts tbody[data-task="1"] tr[data-attempt="1"] .preempted-by`
			if got := p.waitText(sel, "preempted for"); got != tc.want {
				t.Errorf("reason = %q, want %q", got, tc.want)
			}
			links := evalJS[float64](p, `document.querySelectorAll('`+sel+` a[href="#/jobs/2"]').length`)
			if (links == 1) != tc.linkArg {
				t.Errorf("%v links to job 2, want a link: %v", links, tc.linkArg)
			}
		})
	}
}

// TestJobDetailResizedAttempt: an attempt the scheduler resized ends
// "preempted" in the API but reads resized, as allot job show's END: its
// task restarted at once in its new placement.
func TestJobDetailResizedAttempt(t *testing.T) {
	f := newFixture()
	f.mu.Lock()
	a := &f.jobs[0].TaskList[1].Attempts[0]
	a.Reason = "checkpointed to resize"
	a.PreemptedBy = &api.PreemptedBy{Job: 2, Reason: "resized", Why: "resizing to 2 slots for job 2 (fair share)"}
	f.mu.Unlock()
	p := openPage(t, f, "#/jobs/1", wide)
	row := p.waitText(`#attempts tbody[data-task="1"] tr[data-attempt="1"]`, "resized")
	if !strings.Contains(row, "\tresized\t143\t") || strings.Contains(row, "\tpreempted\t") {
		t.Errorf("resized attempt's row = %q, want its end resized, not preempted", row)
	}
}

// TestJobDetailShowsExitedEarlier: an attempt the master heard of more
// than 5 s after its processes exited (an outage) shows when they
// exited under Ended, as allot job show does; one heard of at once does not.
func TestJobDetailShowsExitedEarlier(t *testing.T) {
	f := newFixture()
	var j1 *api.Job
	for _, j := range f.jobs {
		if j.ID == 1 {
			j1 = j
		}
	}
	for i := range j1.TaskList {
		tk := &j1.TaskList[i]
		for k := range tk.Attempts {
			if a := &tk.Attempts[k]; tk.Index == 1 && a.Number == 1 && a.EndedAt != nil {
				x := a.EndedAt.Add(-5 * time.Minute)
				a.ExitedAt = &x
			}
		}
	}
	p := openPage(t, f, "#/jobs/1", wide)
	row := p.waitText(`#attempts tbody[data-task="1"] tr[data-attempt="1"]`, "exited")
	if !strings.Contains(row, "preempted") {
		t.Errorf("attempt row = %q, want the preempted attempt with its exit noted", row)
	}
	if n := evalJS[int](p, `document.querySelectorAll('#attempts .exited').length`); n != 1 {
		t.Errorf("%d exit notes, want 1 (only the attempt heard of late)", n)
	}
}
