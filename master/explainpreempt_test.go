package master

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestExplainPreemptNote (trial 29e E2): a waiting job whose pool's rule
// may preempt for it (its QOS preempts, or the pool preempts) but that
// must wait for a running job all the same says why the rule takes none:
// that job is not preemptible, or does not rank below it; and its listed
// reason (the pending message of the job and of the jobs list: allot
// jobs, allot job show, the dashboard) says it short. One node of 4
// slots; r (4 slots) runs; w (2 slots) waits. Where the rule takes r, or
// is off for w, nothing of it is said.
func TestExplainPreemptNote(t *testing.T) {
	const (
		mf     = "pools:\n  - {name: default, policy: multifactor, preemption: true, backfill: true, multifactor: {qos: 100000, age: 1000}}\n"
		mfOff  = "pools:\n  - {name: default, policy: multifactor, multifactor: {qos: 100000, age: 1000}}\n"
		prio   = "pools:\n  - {name: default, policy: priority, preemption: true}\n"
		fifo   = "pools:\n  - {name: default, policy: fifo}\n"
		notPre = "{r} is not preemptible (resources.preemptible is false, the default for jobs other than experiments)"
	)
	tests := []struct {
		name, cfg string
		r, w      string // the jobs' extra resources
		says, not []string
		lists     string // what w's listed reason ends with; "" for no note
	}{
		{"emergency QOS, r not preemptible", mf, "", `, "qos": "emergency"`,
			[]string{"It could start on n1 once job {r} ends.", "Its QOS emergency may preempt, but job " + notPre + ", so it waits for it to end."},
			[]string{"or is preempted"}, "; its QOS emergency may preempt, but job {r} is not preemptible"},
		{"the pool preempts, r not preemptible", mf, "", `, "qos": "high"`,
			[]string{"Pool default preempts, but job " + notPre + ", so it waits for it to end."},
			[]string{"Its QOS", "or is preempted"}, "; its pool preempts, but job {r} is not preemptible"},
		{"the pool preempts, r preemptible of a higher QOS", mf, `, "preemptible": true, "qos": "high"`, "",
			[]string{"Pool default preempts, but job {r} does not rank below it (the rule takes only tasks of a lower QOS and a lower multifactor priority), so it waits for it to end."},
			[]string{"not preemptible"}, "; its pool preempts, but job {r} does not rank below it"},
		{"priority pool, r not preemptible", prio, `, "priority": 50`, `, "priority": 10`,
			[]string{"Pool default preempts, but job " + notPre + ", so it waits for it to end."}, nil,
			"; its pool preempts, but job {r} is not preemptible"},
		{"priority pool, r preemptible of w's priority", prio, `, "preemptible": true, "priority": 10`, `, "priority": 10`,
			[]string{"job {r} does not rank below it (the rule takes only tasks of a lower priority (a larger number))"}, nil,
			"; its pool preempts, but job {r} does not rank below it"},
		{"no preemption for w: nothing said", mfOff, "", "",
			[]string{"It could start on n1 once job {r} ends."}, []string{"preempt"}, ""},
		{"fifo: nothing said", fifo, "", "",
			[]string{"It could start on n1 once job {r} ends."}, []string{"preempt"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.cfg)))
			n1 := h.agent("n1", 4)
			r := h.submit(jobSpec("r", 4, `, "time_limit": 3600`+tt.r))
			h.step()
			h.sync(n1, n1)
			w := h.submit(jobSpec("w", 2, `, "time_limit": 600`+tt.w))
			h.step()
			h.sync(n1, n1)
			h.step()
			if st := h.taskState(w, 0); st != "queued" {
				t.Fatalf("w's task is %s, want queued", st)
			}
			say := func(list []string) []string {
				var out []string
				for _, s := range list {
					out = append(out, strings.ReplaceAll(s, "{r}", strconv.FormatInt(r, 10)))
				}
				return out
			}
			x := explainAs(t, h, h.admin, w)
			if x.WouldStart == nil {
				t.Fatalf("no would_start: %+v", x)
			}
			checkSays(t, "message", x.WouldStart.Message, say(tt.says), say(tt.not))
			checkSays(t, "summary", x.Summary, say(tt.says), say(tt.not))
			checkListed(t, h, w, say([]string{tt.lists})[0])
			// The summary quotes the last pass's message, which lists
			// the short note: it says the note once, in full.
			if note := say([]string{tt.lists})[0]; note != "" && strings.Contains(x.Summary, strings.TrimPrefix(note, "; ")) {
				t.Errorf("summary repeats the listed note %q:\n%s", note, x.Summary)
			}
		})
	}
}

// checkListed checks that job id's pending message, as the job and as
// the jobs list give it, ends with note, or says nothing of preemption
// where note is "".
func checkListed(t *testing.T, h *harness, id int64, note string) {
	t.Helper()
	var list []api.Job
	if code := h.do("GET", "/api/v1/jobs", nil, &list); code != http.StatusOK {
		t.Fatalf("list jobs: status %d", code)
	}
	listed := slices.IndexFunc(list, func(j api.Job) bool { return j.ID == id })
	if listed < 0 {
		t.Fatalf("job %d not listed", id)
	}
	for what, j := range map[string]api.Job{"job": h.job(id), "jobs list": list[listed]} {
		if j.Pending == nil {
			t.Fatalf("%s: job %d has no pending", what, id)
		}
		m := j.Pending.Message
		switch {
		case note == "" && strings.Contains(m, "preempt"):
			t.Errorf("%s: message %q speaks of preemption", what, m)
		case note != "" && !strings.HasSuffix(m, note):
			t.Errorf("%s: message %q does not end with %q", what, m, note)
		}
	}
}
