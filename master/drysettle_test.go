package master

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// dryCase is a cluster, a job file to dry-run on it, and what the dry run
// must answer; the same file is then submitted, and the live master's
// settling must do what the dry run said.
type dryCase struct {
	name   string
	config string
	nodes  []rnode
	// running are submitted, scheduled and started before the dry run.
	running []string
	dry     string
	// What the dry run answers: whether it starts now, the reason it
	// waits, words its message has, the jobs it preempts, and words
	// its would_start message has ("" for no would_start, which a job
	// that preempts never has: it does not wait for what it says).
	startsNow bool
	reason    string
	message   string
	preempts  []int64
	would     string
	// position, when set, is its place in the queue.
	position int
}

// trialsSpec is jobSpec's job file with n trials.
func trialsSpec(name string, slots int, extra string, n int) string {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = strconv.Itoa(i + 1)
	}
	return strings.TrimSuffix(jobSpec(name, slots, extra), "}") +
		`, "hyperparameters": {"x": {"type": "categorical", "vals": [` + strings.Join(vals, ", ") + `]}}}`
}

func dryCases() []dryCase {
	return []dryCase{
		{name: "fits: starts now", config: "pools:\n  - {name: default, policy: fifo}\n",
			nodes: []rnode{{"n1", 4}}, running: []string{jobSpec("running", 2, `, "time_limit": 3600`)},
			dry: jobSpec("fits", 2, ""), startsNow: true},
		{name: "waits for a running job to end", config: "pools:\n  - {name: default, policy: fifo}\n",
			nodes: []rnode{{"n1", 4}}, running: []string{jobSpec("running", 2, `, "time_limit": 3600`)},
			dry: jobSpec("big", 4, ""), reason: "no_capacity", message: "2 are free",
			would: "It could start on n1 once job 1 ends."},
		{name: "preempts its way in", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes:   []rnode{{"n1", 2}},
			running: []string{jobSpec("victim", 2, `, "priority": 80, "preemptible": true`)},
			dry:     jobSpec("urgent", 2, `, "priority": 10`), reason: "checkpointing", preempts: []int64{1}},
		{name: "starts one task now, preempts for the other", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes:   []rnode{{"n0", 2}, {"n1", 2}},
			running: []string{jobSpec("victim", 2, `, "priority": 80, "preemptible": true`)},
			dry:     trialsSpec("urgent", 2, `, "priority": 10`, 2), startsNow: true, preempts: []int64{1}},
		// The quota rounds serve project b, under its quota, before a's
		// more urgent job past a's: the dry run's place is its turn in
		// them, not its place by priority (first), as live.
		// Past their quotas, the quota rounds serve project b, holding
		// less of its share, before a's more urgent job: the dry run's
		// place is its turn in them (second), not its place by priority
		// (first), as live. Job 2 (b's) ending alone would bring b back
		// under its quota, and b's job 3 would take the slots it frees:
		// job 1 must end too.
		{name: "waits its turn in the quota rounds", config: "pools:\n  - {name: default, policy: quota}\ndefault_project: a\nprojects:\n  - {name: a, quota: 2}\n  - {name: b, quota: 2}\n",
			nodes: []rnode{{"n1", 4}},
			running: []string{
				`{"name": "a-run", "project": "a", "entrypoint": "x", "resources": {"slots": 2, "preemptible": false, "time_limit": 3600}}`,
				`{"name": "b-run", "project": "b", "entrypoint": "x", "resources": {"slots": 1, "preemptible": false, "time_limit": 3600}}`,
				`{"name": "b-wait", "project": "b", "entrypoint": "x", "resources": {"slots": 2, "priority": 50, "preemptible": true}}`,
			},
			dry:    `{"name": "a-wait", "project": "a", "entrypoint": "x", "resources": {"slots": 2, "priority": 10, "preemptible": true}}`,
			reason: "no_spare", message: "needs 2, 1 free", would: "It could start on n1 once jobs 2 and 1 end: job 3 would take some of what they free", position: 2},
		{name: "quota reclaim", config: "pools:\n  - {name: default, policy: quota}\ndefault_project: a\nprojects:\n  - {name: a, quota: 0}\n  - {name: b, quota: 4}\n",
			nodes:   []rnode{{"n1", 4}},
			running: []string{`{"name": "borrow", "project": "a", "entrypoint": "x", "resources": {"slots": 4, "preemptible": true}}`},
			dry:     `{"name": "owed", "project": "b", "entrypoint": "x", "resources": {"slots": 4}}`,
			reason:  "checkpointing", preempts: []int64{1}},
		// The job, first in the queue, preempts job 1 for its first task
		// and blocks on its second, which lets job 2's tasks backfill on
		// the slots left idle: the pass that follows finds none free.
		// One pass said "2 are free"; before the job's entry counted its
		// tasks, it said "checkpointing", as if one task were all it had.
		{name: "backfill behind it in the same instant: the second pass's reason",
			config: "pools:\n  - {name: default, policy: priority, backfill: true, preemption: true}\n",
			nodes:  []rnode{{"n0", 2}, {"n1", 2}, {"n2", 6}},
			running: []string{
				trialsSpec("a", 6, `, "priority": 2, "time_limit": 373`, 2),
				trialsSpec("b", 1, `, "priority": 2, "preemptible": true, "time_limit": 202`, 3),
			},
			dry:    trialsSpec("d", 8, `, "priority": 1, "time_limit": 300`, 2),
			reason: "no_capacity", message: "0 are free", preempts: []int64{1}},
	}
}

// TestDryRunAsSubmitted: a dry run answers what the live master's
// settling of the submission does (lifecycle.Settler, as drySettling
// drives it): whether it starts, the reason it waits once the passes
// have settled, the jobs it preempts, and what would let it start,
// which is what explain says of the job once submitted.
func TestDryRunAsSubmitted(t *testing.T) {
	for _, tt := range dryCases() {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.config)))
			var agents []*mastertest.Agent
			for _, n := range tt.nodes {
				agents = append(agents, h.agent(n.name, n.gpus))
			}
			for _, r := range tt.running {
				h.submit(r)
			}
			h.step()
			h.sync(agents...)
			h.sync(agents...)
			h.step()
			var d api.DryRun
			if code := h.do("POST", "/api/v1/jobs?dry_run=true", tt.dry, &d); code != 200 {
				t.Fatalf("dry run: status %d", code)
			}
			checkDryAnswer(t, tt, d)
			id := h.submit(tt.dry)
			h.step()
			checkAsLive(t, h, id, d)
		})
	}
}

// checkDryAnswer checks a dry run's answer against the case's.
func checkDryAnswer(t *testing.T, tt dryCase, d api.DryRun) {
	t.Helper()
	if d.StartsNow != tt.startsNow {
		t.Fatalf("starts now %v, want %v (pending %+v)", d.StartsNow, tt.startsNow, d.Pending)
	}
	if victims := victimIDs(d); !slices.Equal(victims, tt.preempts) {
		t.Fatalf("preempts %v, want %v", victims, tt.preempts)
	}
	if tt.startsNow {
		if d.Pending != nil || d.WouldStart != nil {
			t.Fatalf("pending %+v, would_start %+v for a job that starts now", d.Pending, d.WouldStart)
		}
		if len(d.Preempts) > 0 && !strings.Contains(d.Summary, "For its other tasks it would preempt") {
			t.Fatalf("summary %q does not name the preemptions", d.Summary)
		}
		return
	}
	if tt.position > 0 && d.Position != tt.position {
		t.Fatalf("position %d of %d, want %d", d.Position, d.Queued+1, tt.position)
	}
	if d.Pending == nil || d.Pending.Reason != tt.reason || !strings.Contains(d.Pending.Message, tt.message) {
		t.Fatalf("pending %+v, want %s with %q", d.Pending, tt.reason, tt.message)
	}
	if tt.would == "" {
		if d.WouldStart != nil {
			t.Fatalf("would_start %+v for a job that would preempt %v", d.WouldStart, victimIDs(d))
		}
		return
	}
	if d.WouldStart == nil || !strings.Contains(d.WouldStart.Message, tt.would) {
		t.Fatalf("would_start %+v, want a message with %q", d.WouldStart, tt.would)
	}
	if !strings.Contains(d.Summary, d.WouldStart.Message) && len(d.Preempts) == 0 {
		t.Fatalf("summary %q does not say what would let it start", d.Summary)
	}
}

// checkAsLive checks that the live master did with job id, submitted
// after the dry run d, what d said: it started, or waits for the same
// reason, in the same words, with the same jobs preempted for it, and
// explain's would_start is d's.
func checkAsLive(t *testing.T, h *harness, id int64, d api.DryRun) {
	t.Helper()
	live := h.job(id)
	started := false
	for i := range d.Tasks {
		if s := h.taskState(id, i); s == store.TaskStarting || s == store.TaskRunning {
			started = true
		}
	}
	if started != d.StartsNow {
		t.Fatalf("live: started %v, the dry run said %v", started, d.StartsNow)
	}
	var preempting []int64
	for other := int64(1); other < id; other++ {
		for i := range h.job(other).TaskList {
			if h.taskState(other, i) == store.TaskPreempting && !slices.Contains(preempting, other) {
				preempting = append(preempting, other)
			}
		}
	}
	if said := victimIDs(d); !slices.Equal(preempting, said) {
		t.Fatalf("live: jobs %v preempting, the dry run said %v", preempting, said)
	}
	if d.StartsNow {
		return
	}
	if live.Pending == nil || live.Pending.Reason != d.Pending.Reason || live.Pending.Message != d.Pending.Message {
		t.Fatalf("live pending %+v, the dry run said %+v", live.Pending, d.Pending)
	}
	if live.Position != d.Position {
		t.Fatalf("live: position %d, the dry run said %d of %d", live.Position, d.Position, d.Queued+1)
	}
	if len(d.Preempts) > 0 {
		return // the dry run has no would_start to compare
	}
	var x api.Explanation
	if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/explain", nil, &x); code != 200 {
		t.Fatalf("explain: status %d", code)
	}
	if !reflect.DeepEqual(x.WouldStart, d.WouldStart) {
		t.Fatalf("explain's would_start %+v, the dry run's %+v", x.WouldStart, d.WouldStart)
	}
}

// victimIDs are the jobs a dry run preempts.
func victimIDs(d api.DryRun) []int64 {
	var ids []int64
	for _, v := range d.Preempts {
		ids = append(ids, v.Job)
	}
	return ids
}

// TestDryRunWouldStart: a dry run that would wait says what would let it
// start, as explain does of a waiting job: the constraint no node meets
// (naming the job by its name, as it has no number yet), the quota that
// binds; none for a job that starts now.
func TestDryRunWouldStart(t *testing.T) {
	const quota = "pools:\n  - {name: default, policy: quota}\ndefault_project: a\nprojects:\n  - {name: a, quota: 0}\n  - {name: b, quota: 2}\n"
	tests := []struct {
		name  string
		path  string
		spec  string
		check func(cf *api.Counterfactual) bool
	}{
		{"never on today's nodes", "/api/v1/jobs?dry_run=true&allow_infeasible=true", jobSpec("huge", 8, ""),
			func(cf *api.Counterfactual) bool {
				return cf != nil && strings.HasPrefix(cf.Never, "job huge can never run") && strings.HasPrefix(cf.Message, "It cannot start")
			}},
		{"the quota binds", "/api/v1/jobs?dry_run=true&allow_infeasible=true", `{"name": "nb", "project": "a", "entrypoint": "x", "resources": {"slots": 1, "preemptible": false}}`,
			func(cf *api.Counterfactual) bool {
				return cf != nil && strings.Contains(cf.Quota, "Its project a holds 0 of its quota of 0")
			}},
		{"starts now: none", "/api/v1/jobs?dry_run=true", `{"name": "ok", "project": "b", "entrypoint": "x", "resources": {"slots": 1}}`,
			func(cf *api.Counterfactual) bool { return cf == nil }},
	}
	h := newHarness(t, withConfig(mustConfig(t, quota)))
	h.agent("n1", 4)
	h.step()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d api.DryRun
			if code := h.do("POST", tt.path, tt.spec, &d); code != 200 {
				t.Fatalf("status %d", code)
			}
			if !tt.check(d.WouldStart) {
				t.Fatalf("would_start %+v (pending %+v)", d.WouldStart, d.Pending)
			}
			if d.WouldStart != nil && !strings.Contains(d.Summary, d.WouldStart.Message) {
				t.Fatalf("summary %q does not say %q", d.Summary, d.WouldStart.Message)
			}
		})
	}
}

// TestDryRunDuringPasses: dry runs copy the last snapshot under mu and
// settle their copy without it, while the live passes go on (run it
// with -race): each answers, and the live jobs are the submitted ones.
func TestDryRunDuringPasses(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: priority, preemption: true}\n")))
	a := h.agent("n1", 4)
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(done)
		for i := range 20 {
			var d api.DryRun
			if code := h.do("POST", "/api/v1/jobs?dry_run=true", jobSpec("dry", 1+i%4, `, "priority": 5`), &d); code != 200 || !d.Accepted {
				errs <- fmt.Errorf("dry run %d: status %d, %+v", i, code, d)
				return
			}
		}
	}()
	for i := range 10 {
		h.submit(jobSpec("live", 1+i%2, `, "priority": 50, "preemptible": true`))
		h.step()
		h.sync(a)
	}
	<-done
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	jobs, _ := h.st.Jobs(h.ctx, storeJobFilter())
	if len(jobs) != 10 {
		t.Fatalf("%d jobs stored, want the 10 submitted", len(jobs))
	}
}
