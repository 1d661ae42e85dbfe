package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestCounterfactualNotItself: a job with tasks running and tasks
// waiting is never told to wait for itself ("it could start once job 1
// ends", said of job 1, which ending would not start its waiting tasks).
// Where another job's end would make room, that job is named; where only
// the job's own tasks hold the slots, the message says so and must_end
// names no job. LOW work in a quota pool is told that it borrows and is
// reclaimed first.
func TestCounterfactualNotItself(t *testing.T) {
	const quota = "default_project: sandbox\npools:\n  - {name: default, policy: quota}\n" +
		"projects:\n  - {name: vision, quota: 2}\n  - {name: sandbox, quota: 0}\n"
	tests := []struct {
		name   string
		config string
		jobs   []string
		ask    int64 // the job explained
		want   []int64
		msg    string
		quota  string // the start of the counterfactual's quota note
	}{
		{name: "borrowed GPUs reclaimed: the owner's job is named", config: quota,
			jobs: []string{trialsSpec("sweep", 1, `, "priority": 80`, 4),
				strings.Replace(jobSpec("owner", 2, ""), `"name"`, `"project": "vision", "name"`, 1)},
			ask: 1, want: []int64{2}, msg: "It could start on n1 once job 2 ends.",
			quota: "It is LOW-class work, which counts toward no quota: it borrows idle slots of pool default"},
		{name: "only its own tasks hold the slots",
			config: "pools:\n  - {name: default, policy: fifo}\n",
			jobs:   []string{trialsSpec("sweep", 1, "", 6)},
			ask:    1, msg: "It could start on n1 once some of its own running tasks end: they hold the slots it needs."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.config)))
			a := h.agent("n1", 4)
			for _, j := range tt.jobs {
				h.submit(j)
				for range 3 {
					h.step()
					h.sync(a, a)
				}
			}
			h.step()
			var x api.Explanation
			if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(tt.ask, 10)+"/explain", nil, &x); code != 200 {
				t.Fatalf("explain: status %d", code)
			}
			cf := x.WouldStart
			if cf == nil {
				t.Fatalf("no counterfactual: %+v", x)
			}
			var got []int64
			for _, r := range cf.MustEnd {
				got = append(got, r.ID)
			}
			if !strings.HasPrefix(cf.Message, tt.msg) || len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
				t.Fatalf("message %q, must end %v; want %q, %v", cf.Message, got, tt.msg, tt.want)
			}
			if !strings.HasPrefix(cf.Quota, tt.quota) || (tt.quota == "") != (cf.Quota == "") {
				t.Fatalf("quota note %q, want %q", cf.Quota, tt.quota)
			}
		})
	}
}

// TestCounterfactualOwnNodeNotPicked (trial r R1): a sweep whose running
// trials fill n2 and whose next trial waits, beside another job on n1,
// is told it could start on n1 once that job ends, not "on n1 once some
// of its own running tasks end" (its own tasks run on n2, and n2, with
// them left out, could free nothing: it was picked for needing no end).
func TestCounterfactualOwnNodeNotPicked(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo}\n")))
	n1 := h.agent("n1", 4)
	n2 := h.agent("n2", 4)
	other := h.submit(jobSpec("other", 4, `, "time_limit": 1800`))
	h.step()
	h.sync(n1, n2)
	sweep := h.submit(trialsSpec("sweep", 1, "", 6))
	for range 3 {
		h.step()
		h.sync(n1, n2)
	}
	var x api.Explanation
	if code := h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(sweep, 10)+"/explain", nil, &x); code != 200 {
		t.Fatalf("explain: status %d", code)
	}
	cf := x.WouldStart
	if cf == nil || len(cf.MustEnd) != 1 || cf.MustEnd[0].ID != other || strings.Contains(cf.Message, "its own running tasks") ||
		!strings.HasPrefix(cf.Message, "It could start on n1 once job "+strconv.FormatInt(other, 10)) {
		t.Fatalf("counterfactual %+v, want it to start on n1 once job %d ends", cf, other)
	}
}
