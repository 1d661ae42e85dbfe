package master

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
)

// aheadCase is a pool with running jobs (on nodes, in the order given)
// and waiting ones, and what explain says of one of the waiting jobs.
type aheadCase struct {
	name    string
	config  string
	nodes   []rnode
	running []string // job files, named r1, r2, ... in order
	waiting []string // job files, named by their "name"
	explain string   // the waiting job asked about
	// What would_start names, by job name: nodes, must_end, start_first.
	nodes2     string
	mustEnd    []string
	startFirst []string
	says       []string
	not        []string
	// elsewhere are the must_end jobs that run on none of its nodes
	// (runs_on set), by name; checked where set.
	elsewhere []string
}

// TestExplainJobsAhead: the counterfactual plays out the jobs ranked
// before the job asked about. In a quota pool, job r1 of project alpha
// ending would bring alpha back under its quota, and alpha's job ranked
// first would take its slots: "once job r1 ends" was no promise. The
// answer now names the running jobs whose ends let it start after the
// jobs ranked before it that would take what they free first
// (start_first), or, when even every running job ending would not,
// those jobs alone; in FIFO and priority pools the same. A job with no
// job ranked before it keeps the answer it had.
func TestExplainJobsAhead(t *testing.T) {
	const quota = "pools:\n  - {name: default, policy: quota}\ndefault_project: alpha\nprojects:\n" +
		"  - {name: alpha, quota: 4}\n  - {name: beta, quota: 4}\n"
	quotaRunning := []string{
		`{"name": "r1", "project": "alpha", "entrypoint": "x", "resources": {"slots": 2, "time_limit": 3600}}`,
		`{"name": "r2", "project": "alpha", "entrypoint": "x", "resources": {"slots": 2, "time_limit": 7200}}`,
		`{"name": "r3", "project": "beta", "entrypoint": "x", "resources": {"slots": 4, "time_limit": 10800}}`,
	}
	borrow := func(name, project string) string {
		return `{"name": "` + name + `", "project": "` + project + `", "entrypoint": "x", "resources": {"slots": 2, "preemptible": true}}`
	}
	quotaWaiting := []string{borrow("a1", "alpha"), borrow("b1", "beta"), borrow("a2", "alpha"), borrow("b2", "beta"), borrow("a3", "alpha")}
	const fifo = "pools:\n  - {name: default, policy: fifo}\n"
	const priority = "pools:\n  - {name: default, policy: priority}\n"
	twoNodes := []rnode{{"q1", 4}, {"q2", 4}}
	tests := []aheadCase{
		{name: "quota: the first of alpha's waiting jobs takes what r1 frees", config: quota, nodes: twoNodes,
			running: quotaRunning, waiting: quotaWaiting, explain: "a2",
			nodes2: "q1", mustEnd: []string{"r1", "r2"}, startFirst: []string{"a1"},
			says: []string{"It could start on q1 once jobs {r1} and {r2} end: job {a1} would take some of what they free (the pool's order serves it first)."},
			not:  []string{"once job {r1} ends."}},
		{name: "quota: all ended, alpha's jobs before it and beta's, under quota again, take the pool", config: quota, nodes: twoNodes,
			running: quotaRunning, waiting: quotaWaiting, explain: "a3",
			startFirst: []string{"a1", "b1", "a2", "b2"},
			says: []string{"No running job's end alone would start it now: were all of pool default's running jobs to end, " +
				"the pool's order would serve jobs {a1}, {b1}, {a2} and {b2} first, and it would still wait."},
			not: []string{"once job {r1} ends"}},
		{name: "quota: the first waiting job keeps its answer", config: quota, nodes: twoNodes,
			running: quotaRunning, waiting: quotaWaiting, explain: "a1",
			nodes2: "q1", mustEnd: []string{"r1"},
			says: []string{"It could start on q1 once job {r1} ends."}, not: []string{"would take", "would serve"}},
		{name: "quota: its project's own work, of which the first waiting job takes some", config: quota, nodes: twoNodes,
			running: quotaRunning[:2], explain: "g2",
			waiting: []string{`{"name": "g1", "project": "alpha", "entrypoint": "x", "resources": {"slots": 2}}`,
				`{"name": "g2", "project": "alpha", "entrypoint": "x", "resources": {"slots": 2}}`},
			mustEnd: []string{"r1", "r2"}, startFirst: []string{"g1"},
			says: []string{"Only project alpha's own work in pool default ending would start it, not other projects': " +
				"it could start once jobs {r1} and {r2} end (job {g1} would take some of what they free first), or once the project's quota is raised."},
			not: []string{"once job {r1} ends"}},
		// Trial i item 2: vision is over its quota only in one task larger
		// than its excess, which reclaim may not take; the answer says so.
		{name: "quota: reclaim frees nothing from one task larger than the excess",
			config: "pools:\n  - {name: default, policy: quota}\ndefault_project: vision\nprojects:\n" +
				"  - {name: vision, quota: 2}\n  - {name: nlp, quota: 2}\n",
			nodes:   []rnode{{"n1", 4}},
			running: []string{`{"name": "big", "project": "vision", "entrypoint": "x", "resources": {"slots": 4, "preemptible": true}}`},
			waiting: []string{`{"name": "owed", "project": "nlp", "entrypoint": "x", "resources": {"slots": 2}}`},
			explain: "owed", nodes2: "n1", mustEnd: []string{"r1"},
			says: []string{"It could start on n1 once job {r1} ends.",
				"Reclaim frees nothing for it: project vision is 2 over its quota of 2, but only in tasks of 4 or more slots, " +
					"which reclaim may not take (the project would fall below its quota) nor shrink far enough " +
					"(a task shrinks only if elastic, down to its min_slots and its project's quota)."}},
		{name: "fifo: the head takes the node that frees first", config: fifo, nodes: twoNodes,
			running: []string{jobSpec("r1", 4, `, "time_limit": 3600`), jobSpec("r2", 4, `, "time_limit": 7200`)},
			waiting: []string{jobSpec("head", 4, ""), jobSpec("next", 4, "")}, explain: "next",
			nodes2: "q2", mustEnd: []string{"r1", "r2"}, startFirst: []string{"head"}, elsewhere: []string{"r1"},
			// B8: r1 runs on q1; it must end for head, not to free q2.
			says: []string{"It could start on q2 once job {r2} ends there and, on q1, job {r1} ends for the jobs the pool serves before it: " +
				"job {head} would take some of what they free (the pool's order serves it first)."}},
		{name: "fifo: a gang behind a job the pool holds with it", config: fifo, nodes: twoNodes,
			running: []string{jobSpec("r1", 4, `, "time_limit": 3600`), jobSpec("r2", 4, `, "time_limit": 7200`)},
			waiting: []string{jobSpec("head", 4, ""), jobSpec("gang", 8, "")}, explain: "gang",
			startFirst: []string{"head"},
			says:       []string{"were all of pool default's running jobs to end, the pool's order would serve job {head} first, and it would still wait."}},
		{name: "priority: the more important job submitted later goes first", config: priority, nodes: twoNodes,
			running: []string{jobSpec("r1", 4, `, "priority": 50, "time_limit": 3600`), jobSpec("r2", 4, `, "priority": 50, "time_limit": 7200`)},
			waiting: []string{jobSpec("low", 4, `, "priority": 60`), jobSpec("urgent", 4, `, "priority": 10`)}, explain: "low",
			nodes2: "q2", mustEnd: []string{"r1", "r2"}, startFirst: []string{"urgent"}, elsewhere: []string{"r1"},
			says: []string{"It could start on q2 once job {r2} ends there and, on q1, job {r1} ends for the jobs the pool serves before it: " +
				"job {urgent} would take some of what they free (the pool's order serves it first)."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.config)))
			ids := runAhead(h, tt)
			x := explainAs(t, h, h.admin, ids[tt.explain])
			checkAhead(t, x, tt, ids)
		})
	}
}

// runAhead starts tt's running jobs on its nodes and submits its waiting
// ones; it returns every job's id by name.
func runAhead(h *harness, tt aheadCase) map[string]int64 {
	h.t.Helper()
	var agents []*mastertest.Agent
	for _, n := range tt.nodes {
		agents = append(agents, h.agent(n.name, n.gpus))
	}
	ids := map[string]int64{}
	for i, r := range tt.running {
		ids["r"+strconv.Itoa(i+1)] = h.submit(r)
		h.step()
		h.sync(agents...)
	}
	h.step()
	for _, w := range tt.waiting {
		ids[specName(h.t, w)] = h.submit(w)
	}
	h.step()
	return ids
}

// specName is the "name" of a job file.
func specName(t testing.TB, spec string) string {
	_, rest, ok := strings.Cut(spec, `"name": "`)
	name, _, ok2 := strings.Cut(rest, `"`)
	if !ok || !ok2 {
		t.Fatalf("no name in %s", spec)
	}
	return name
}

func explainAs(t *testing.T, h *harness, token string, id int64) api.Explanation {
	t.Helper()
	var x api.Explanation
	if code := h.doAs(token, "GET", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/explain", nil, &x); code != 200 {
		t.Fatalf("explain %d: %d", id, code)
	}
	return x
}

// checkAhead checks x's counterfactual against tt, its words with each
// {name} standing for that job's id.
func checkAhead(t *testing.T, x api.Explanation, tt aheadCase, ids map[string]int64) {
	t.Helper()
	cf := x.WouldStart
	if cf == nil {
		t.Fatalf("no would_start: %+v", x)
	}
	names := func(refs []api.JobRef) []string {
		var out []string
		for _, r := range refs {
			for n, id := range ids {
				if id == r.ID {
					out = append(out, n)
				}
			}
		}
		return out
	}
	if got := strings.Join(cf.Nodes, ","); got != tt.nodes2 || !slices.Equal(names(cf.MustEnd), tt.mustEnd) ||
		!slices.Equal(names(cf.StartFirst), tt.startFirst) {
		t.Fatalf("would start on %q once %v end, first %v (%q); want %q, %v, %v",
			got, names(cf.MustEnd), names(cf.StartFirst), cf.Message, tt.nodes2, tt.mustEnd, tt.startFirst)
	}
	if tt.elsewhere != nil {
		var away []api.JobRef
		for _, r := range cf.MustEnd {
			if len(r.RunsOn) > 0 {
				away = append(away, r)
			}
		}
		if got := names(away); !slices.Equal(got, tt.elsewhere) {
			t.Errorf("must_end elsewhere (runs_on) %v, want %v", got, tt.elsewhere)
		}
	}
	words := func(ws []string) []string {
		var out []string
		for _, w := range ws {
			for n, id := range ids {
				w = strings.ReplaceAll(w, "{"+n+"}", strconv.FormatInt(id, 10))
			}
			out = append(out, w)
		}
		return out
	}
	checkSays(t, "message", cf.Message, words(tt.says), words(tt.not))
	if len(cf.MustEnd) == 0 && len(cf.StartFirst) > 0 {
		// Said once, under "What would let it start now" (trial 29i
		// I10): the summary does not repeat it.
		checkSays(t, "summary", x.Summary, nil, words(tt.says))
		return
	}
	checkSays(t, "summary", x.Summary, words(tt.says), nil)
}
