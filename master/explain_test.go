package master

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// TestExplain: a waiting job's explanation gives its place in the queue,
// the last pass's reason, and the least that would let it start: the
// running jobs that would have to end, on the node where fewest must; a
// gang behind a job that would take a node first waits for it whatever
// ends; a job no node can run says so.
func TestExplain(t *testing.T) {
	cfg := mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")
	h := newHarness(t, withConfig(cfg))
	n1 := h.agent("n1", 4)
	a := h.submit(jobSpec("a", 4, `, "time_limit": 3600`))
	h.step()
	n2 := h.agent("n2", 4)
	h.submit(jobSpec("b", 2, `, "time_limit": 1800`))
	h.submit(jobSpec("c", 2, `, "time_limit": 7200`))
	h.step()
	h.sync(n1, n2, n1, n2)
	d := h.submit(jobSpec("d", 4, ""))
	e := h.submit(jobSpec("e", 8, ""))
	var reply api.SubmitReply
	if code := h.do("POST", "/api/v1/jobs?allow_infeasible=true", jobSpec("f", 1, `, "gpu": "a100"`), &reply); code != 201 {
		t.Fatalf("submit f: %d", code)
	}
	h.step()

	explain := func(id int64) api.Explanation {
		var x api.Explanation
		if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/explain", nil, &x); code != 200 {
			t.Fatalf("explain %d: %d", id, code)
		}
		return x
	}
	ids := func(refs []api.JobRef) []int64 {
		var out []int64
		for _, r := range refs {
			out = append(out, r.ID)
		}
		return out
	}
	tests := []struct {
		name     string
		job      int64
		position int
		nodes    string
		mustEnd  []int64
		never    bool
		says     []string
		// below is said by the counterfactual's message alone, which
		// explain prints under "What would let it start now", not by
		// the summary too (trial 29i I10).
		below []string
	}{
		{"one node: the node where one job must end", d, 1, "n1", []int64{a}, false,
			[]string{"1st of 3 waiting", "first come, first served", "once job " + strconv.FormatInt(a, 10) + " ends."}, nil},
		// Its gang would need both nodes, every job ended; but job d,
		// first in the queue, would take one of them first.
		{"a gang behind a job that takes a node first: no end alone", e, 2, "", nil, false,
			[]string{"2nd of 3", "Ahead of it: job " + strconv.FormatInt(d, 10)},
			[]string{"were all of pool default's running jobs to end, the pool's order would serve job " + strconv.FormatInt(d, 10) + " first"}},
		{"a GPU type no node has", reply.ID, 3, "", nil, true,
			[]string{"a100", "job " + strconv.FormatInt(reply.ID, 10) + " (f) can never run: "}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := explain(tt.job)
			if x.Position != tt.position || x.WouldStart == nil || x.Pending == nil {
				t.Fatalf("explanation %+v, want position %d with a reason and a counterfactual", x, tt.position)
			}
			cf := x.WouldStart
			if strings.Join(cf.Nodes, ",") != tt.nodes || !slicesEqual(ids(cf.MustEnd), tt.mustEnd) || (cf.Never != "") != tt.never {
				t.Fatalf("counterfactual %+v, want nodes %s, must end %v, never %v", cf, tt.nodes, tt.mustEnd, tt.never)
			}
			for _, s := range tt.says {
				if !strings.Contains(x.Summary, s) {
					t.Errorf("summary %q does not say %q", x.Summary, s)
				}
			}
			checkSays(t, "would start", cf.Message, tt.below, nil)
			checkSays(t, "summary", x.Summary, nil, tt.below)
		})
	}
	if x := explain(a); x.Position != 0 || !strings.Contains(x.Summary, "running") {
		t.Errorf("a running job's explanation: %+v", x)
	}
	if code := h.do("GET", "/api/v1/jobs/999/explain", nil, nil); code != 404 {
		t.Errorf("explain of a missing job: %d, want 404", code)
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestExplainMaxConcurrent: a job held by its own cap on running tasks,
// with free slots about, is not told it "fits now": the counterfactual
// names the cap that holds it (max_concurrent, or max_slots over its
// tasks' slots) and that one of its own tasks must end, once: not again
// in the summary.
func TestExplainMaxConcurrent(t *testing.T) {
	for _, c := range []struct{ name, spec, limit, message string }{
		{"max_concurrent", `{"name": "hp", "entrypoint": "train", "resources": {"slots": 1},
			"hyperparameters": {"lr": {"type": "categorical", "vals": [1, 2, 3, 4]}},
			"searcher": {"name": "grid", "max_concurrent_trials": 2}}`,
			"max_concurrent_trials is 2 and 2 of its trials run", "It runs as many trials as its max_concurrent_trials (2) allows: the next starts when one of its own trials ends."},
		{"max_slots", `{"name": "hp", "entrypoint": "train", "resources": {"slots": 1, "max_slots": 2},
			"hyperparameters": {"lr": {"type": "categorical", "vals": [1, 2, 3, 4]}},
			"searcher": {"name": "grid"}}`,
			"max_slots is 2 (2 tasks of 1 slot) and 2 of its tasks run", "its max_slots (2) allows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")
			h := newHarness(t, withConfig(cfg))
			h.agent("n1", 4)
			hp := h.submit(c.spec)
			h.step()
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(hp, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			cf := x.WouldStart
			if cf == nil || cf.Limit != c.limit || len(cf.Nodes) != 0 || len(cf.MustEnd) != 0 {
				t.Fatalf("counterfactual %+v, want limit %q and no nodes", cf, c.limit)
			}
			// The summary leaves the sentence to would_start, which the
			// CLI and the dashboard print below it (trial 2026-11-29j J2).
			if !strings.Contains(cf.Message, c.message) || strings.Contains(x.Summary, c.message) ||
				strings.Contains(x.Summary, "free now") {
				t.Errorf("message %q, summary %q: want %q in the message only, and not free slots", cf.Message, x.Summary, c.message)
			}
		})
	}
}

// TestExplainPreemptions: a preempted attempt's explanation says by which
// job and under which rule the pass chose it, not only how the attempt
// ended, on either store.
func TestExplainPreemptions(t *testing.T) { onBackends(t, explainPreemptions) }

func explainPreemptions(t *testing.T, h *harness) {
	a := h.agent("n1", 4)
	low := h.submit(jobSpec("low", 4, `, "priority": 60, "preemptible": true`))
	h.step()
	h.sync(a, a)
	high := h.submit(jobSpec("high", 4, `, "priority": 10`))
	h.step()
	h.sync(a)
	a.Exit(tid(low, 0, 1), agent.OutcomePreempted, 0)
	h.sync(a)
	var x api.Explanation
	if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(low, 10)+"/explain", nil, &x); code != 200 {
		t.Fatalf("explain: %d", code)
	}
	want := "preempted for job " + strconv.FormatInt(high, 10) + " (priority 10 runs before the preempted job's 60)"
	if len(x.Preemptions) != 1 || !strings.Contains(x.Preemptions[0], want) ||
		!strings.HasPrefix(x.Preemptions[0], "task 0 attempt 1 at ") {
		t.Fatalf("preemptions %q, want one naming %q", x.Preemptions, want)
	}
	if len(x.Preempted) != 1 || x.Preempted[0].Task != 0 || x.Preempted[0].Attempt != 1 ||
		!strings.Contains(x.Preempted[0].Why, want) || x.Preempted[0].At.IsZero() {
		t.Errorf("preempted %+v, want task 0 attempt 1 naming %q", x.Preempted, want)
	}
}

// TestMustEndPhrase: the jobs that must end are named in the number they
// take, preemption only for those the pool's policy could preempt, and
// jobs that must end apart from those that could be preempted.
func TestMustEndPhrase(t *testing.T) {
	refs := func(preempt string, ids ...int64) []api.JobRef {
		var out []api.JobRef
		for _, id := range ids {
			out = append(out, api.JobRef{ID: id, Preempt: preempt})
		}
		return out
	}
	possible, underWay := api.PreemptPossible, api.PreemptUnderWay
	for _, tt := range []struct {
		name string
		refs []api.JobRef
		want string
	}{
		{"one that could be preempted", refs(possible, 3), "job 3 ends or is preempted"},
		{"two that could be preempted", refs(possible, 3, 5), "jobs 3 and 5 end or are preempted"},
		{"three that could be preempted", refs(possible, 3, 5, 8), "jobs 3, 5 and 8 end or are preempted"},
		{"one that must end", refs("", 3), "job 3 ends"},
		{"two that must end", refs("", 3, 5), "jobs 3 and 5 end"},
		{"one being preempted", append(refs(underWay, 2), refs("", 4)...), "job 4 ends and job 2 is preempted and checkpoints"},
		{"only ones being preempted", refs(underWay, 2, 4), "jobs 2 and 4 are preempted and checkpoint"},
		{"one must end, one could be preempted", append(refs("", 6), refs(possible, 2)...),
			"job 6 ends and job 2 ends or is preempted"},
		{"all three kinds", append(append(refs(possible, 2), refs(underWay, 4)...), refs("", 6)...),
			"job 6 ends, job 2 ends or is preempted and job 4 is preempted and checkpoints"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustEndPhrase(tt.refs); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestExplainPreemptingPool: in a pool with preemption, the counterfactual
// says the running job may end or be preempted, or is preempted once the
// core asked it to stop (Alloc.Preempting).
func TestExplainPreemptingPool(t *testing.T) {
	const preempting = "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	for _, tt := range []struct {
		name, pools, a, d, want string
	}{
		// The pass already asked job a to stop for d: it is preempted,
		// not waited for to end.
		{"priority with preemption", preempting, `, "priority": 80`, `, "priority": 10`, " is preempted and checkpoints."},
		{"priority with preemption, the same priority", preempting, `, "priority": 42, "preemptible": true`, "", " ends."},
		{"priority with preemption, not preemptible", preempting, `, "priority": 45`, `, "priority": 10`, " ends."},
		{"priority without preemption or a preempting QOS",
			"pools:\n  - {name: default, policy: priority}\nqos:\n  - {name: normal}\n", "", "", " ends."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.pools)))
			n1 := h.agent("n1", 4)
			a := h.submit(jobSpec("a", 4, `, "time_limit": 3600`+tt.a))
			h.step()
			h.sync(n1)
			d := h.submit(jobSpec("d", 4, tt.d))
			h.step()
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(d, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			want := "once job " + strconv.FormatInt(a, 10) + tt.want
			if x.WouldStart == nil || !strings.Contains(x.WouldStart.Message, want) {
				t.Errorf("counterfactual %+v does not say %q", x.WouldStart, want)
			}
		})
	}
}

// TestOrderOf: the priority order names the number, since a LOW job has a
// higher number (80) than a HIGH one (10) and "lower first" alone reads as
// lower priority first; the fair-share order names jobs, which it ranks.
func TestOrderOf(t *testing.T) {
	for _, tt := range []struct {
		name   string
		policy sched.Policy
		want   string
	}{
		{"priority", sched.PolicyPriority, "by priority (the lower number first), then by submission"},
		{"fifo", sched.PolicyFIFO, "first come, first served"},
		// The fair_share policy shares the pool among jobs, not users or
		// projects (docs/policies.md).
		{"fair share", sched.PolicyFairShare, "the job furthest below its fair share (demand × weight) first, then by submission"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := orderOf(tt.policy); got != tt.want {
				t.Errorf("orderOf(%s) = %q, want %q", tt.policy, got, tt.want)
			}
		})
	}
}

// TestExplainFitsNow: a job held back only by the queue ahead is told that
// the slots it needs are free, not that the node has only that many free.
func TestExplainFitsNow(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
	n1 := h.agent("n1", 8)
	h.submit(jobSpec("a", 2, `, "time_limit": 3600`))
	h.step()
	h.sync(n1)
	h.submit(jobSpec("d", 8, ""))
	two := h.submit(jobSpec("two", 2, ""))
	one := h.submit(jobSpec("one", 1, ""))
	h.step()
	for _, tt := range []struct {
		name string
		job  int64
		want string
	}{
		{"two slots", two, "The 2 slots it needs are free now on n1: it would start at once if nothing ranked before it"},
		{"one slot", one, "The 1 slot it needs is free now on n1: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(tt.job, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if x.WouldStart == nil || !strings.Contains(x.WouldStart.Message, tt.want) {
				t.Errorf("counterfactual %+v does not say %q", x.WouldStart, tt.want)
			}
		})
	}
}

// TestExplainBackfillOnlyPreemptible: behind a blocked job of a priority
// pool with backfill, idle slots go only to preemptible jobs (the pool's
// backfill window): a job that is not preemptible is told so, not that
// it would start at once; without backfill nothing passes a blocked job.
func TestExplainBackfillOnlyPreemptible(t *testing.T) {
	const atOnce = "it would start at once if nothing ranked before it"
	for _, tt := range []struct {
		name, pools, want, not string
	}{
		{"priority with backfill", "pools:\n  - {name: default, policy: priority, backfill: true}\n",
			"only preemptible jobs may start on slots idle behind a job ranked before it (priority backfill), and it is not preemptible", atOnce},
		{"priority without backfill", "pools:\n  - {name: default, policy: priority}\n", atOnce, "preemptible"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.pools)))
			n1 := h.agent("n1", 8)
			h.submit(jobSpec("a", 4, `, "time_limit": 3600, "priority": 40`))
			h.step()
			h.sync(n1)
			h.submit(jobSpec("head", 8, `, "priority": 10`)) // blocked: 4 slots are free
			n := h.submit(jobSpec("n", 2, `, "priority": 50, "preemptible": false`))
			h.step()
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(n, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			if cf := x.WouldStart; cf == nil || !strings.Contains(cf.Message, tt.want) || strings.Contains(cf.Message, tt.not) {
				t.Errorf("counterfactual %+v, want it to say %q and not %q", cf, tt.want, tt.not)
			}
		})
	}
}

// TestPreemptionWhy: the rule that chose a preempted attempt, then how it
// ended, saying "preempted" once.
func TestPreemptionWhy(t *testing.T) {
	rule := "preempted for job 6 (priority 10 runs before the preempted job's 60)"
	for _, c := range []struct{ name, ended, want string }{
		{"ended by a signal", "preempted: ended by SIGTERM", rule + "; ended by SIGTERM"},
		{"checkpointed", "stopped for a checkpoint after preemption", rule + "; stopped for a checkpoint after preemption"},
		{"no account", "", rule},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := preemptionWhy(rule, c.ended); got != c.want {
				t.Errorf("preemptionWhy = %q, want %q", got, c.want)
			}
		})
	}
}

// TestExplainCountsFromNow: an explanation's reason counts down to the
// reservation from the time of the request, which it gives as as_of, not
// from the time of its pass: the countdown and as_of to estimated_start
// are one span, however long ago the pass ran.
func TestExplainCountsFromNow(t *testing.T) {
	h, _, waiting := reservedBehind(t)
	h.step()
	for _, tt := range []struct {
		name    string
		advance time.Duration // since the pass, without another
		want    string
	}{
		{"at the pass", 0, "reservation to start in 1h"},
		{"a second later", time.Second, "reservation to start in 59m 59s"},
		{"ten minutes later", 10 * time.Minute, "reservation to start in 49m 59s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h.clock.Advance(tt.advance)
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(waiting, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: %d", code)
			}
			p := x.Pending
			if p == nil || p.EstimatedStart == nil || !strings.Contains(p.Message, tt.want) {
				t.Fatalf("pending %+v, want %q", p, tt.want)
			}
			if now := h.clock.Now().Truncate(time.Second); !x.AsOf.Equal(now) {
				t.Errorf("as_of %v, want the request's time %v", x.AsOf, now)
			}
			if in := "in " + sched.HumanDuration(int64(p.EstimatedStart.Sub(x.AsOf)/time.Second)); !strings.Contains(p.Message, in) {
				t.Errorf("message %q, but as_of to estimated_start is %s", p.Message, in)
			}
			if !strings.Contains(x.Summary, tt.want) {
				t.Errorf("summary %q does not say %q", x.Summary, tt.want)
			}
		})
	}
}

// TestPreemptedSentence: the summary counts preempted attempts by task:
// four tasks preempted once each are not one job preempted four times.
func TestPreemptedSentence(t *testing.T) {
	at := func(tasks ...int) api.Explanation {
		var x api.Explanation
		for _, task := range tasks {
			x.Preemptions = append(x.Preemptions, "line")
			x.Preempted = append(x.Preempted, api.Preemption{Task: task})
		}
		return x
	}
	lines := api.Explanation{Preemptions: []string{"a", "b"}}
	for _, tt := range []struct {
		name string
		x    api.Explanation
		want string
	}{
		{"one task once", at(0), "Its task 0 was preempted once."},
		{"one task twice", at(2, 2), "Its task 2 was preempted twice."},
		{"four tasks once each", at(0, 1, 2, 3), "4 of its tasks were preempted, once each."},
		{"two tasks, three times", at(0, 1, 1), "2 of its tasks were preempted, 3 times in all."},
		{"lines without their tasks", lines, "Its tasks were preempted twice in all."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := preemptedSentence(tt.x); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestInterruptedSentence: attempts lost with their nodes are counted
// beside preemptions, not left out (trial o F18).
func TestInterruptedSentence(t *testing.T) {
	x := func(preempted, lost []int) api.Explanation {
		var x api.Explanation
		for _, task := range preempted {
			x.Preemptions = append(x.Preemptions, "line")
			x.Preempted = append(x.Preempted, api.Preemption{Task: task})
		}
		for _, task := range lost {
			x.Lost = append(x.Lost, api.Preemption{Task: task})
		}
		return x
	}
	for _, tt := range []struct {
		name string
		x    api.Explanation
		want string
	}{
		{"neither", x(nil, nil), ""},
		{"preempted only", x([]int{0, 0}, nil), "Its task 0 was preempted twice."},
		{"lost only", x(nil, []int{1}), "Its task 1 was lost with its node once."},
		{"lost, two tasks", x(nil, []int{0, 1}), "2 of its tasks were lost with their nodes, once each."},
		{"lost, two tasks, three times", x(nil, []int{0, 1, 1}), "2 of its tasks were lost with their nodes, 3 times in all."},
		{"one task both ways", x([]int{0, 0}, []int{0, 0}), "Its task 0 was preempted twice and lost with its node twice."},
		{"two tasks", x([]int{0}, []int{1}),
			"Its task 0 was preempted once. Its task 1 was lost with its node once."},
		{"lines without their tasks", api.Explanation{Preemptions: []string{"a"}, Lost: []api.Preemption{{Task: 0}}},
			"Its tasks were preempted once in all. Its task 0 was lost with its node once."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := interruptedSentence(tt.x); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestResizedSentence: resizes are counted apart from preemptions (trial
// k C1), by task, shrinks and growths apart, naming the jobs shrunk for.
func TestResizedSentence(t *testing.T) {
	shrink := func(task int, forJob int64) api.Resize { return api.Resize{Task: task, From: 4, To: 2, ForJob: forJob} }
	grow := func(task int) api.Resize { return api.Resize{Task: task, From: 2, To: 4} }
	for _, tt := range []struct {
		name string
		rs   []api.Resize
		want string
	}{
		{"shrunk and grown", []api.Resize{shrink(0, 2), grow(0)}, "Its task 0 was resized twice (shrunk once for job 2, grown once)."},
		{"shrunk once", []api.Resize{shrink(1, 7)}, "Its task 1 was resized once (shrunk once for job 7)."},
		{"grown once", []api.Resize{grow(0)}, "Its task 0 was resized once (grown once)."},
		{"a shrink of an old master names no job", []api.Resize{shrink(0, 0)}, "Its task 0 was resized once (shrunk once)."},
		{"two tasks once each", []api.Resize{shrink(0, 2), shrink(1, 2)}, "2 of its tasks were resized, once each (shrunk twice for job 2)."},
		{"two tasks, for two jobs, grown", []api.Resize{shrink(0, 2), shrink(1, 5), grow(1)},
			"2 of its tasks were resized, 3 times in all (shrunk twice for jobs 2 and 5, grown once)."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := resizedSentence(tt.rs); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
