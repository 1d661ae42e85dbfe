package master

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestJobsStateHeld: GET /jobs?state=held lists exactly the queued jobs
// held, in a list and a page, alone or with other states and filters;
// state=queued keeps listing them with the other queued jobs, as
// state=killed keeps the jobs still ending (trial 2026-11-29c leftover:
// state=held was a 400 while allot jobs -t held worked).
func TestJobsStateHeld(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 1)
	running := h.submit(jobSpec("running", 1, ""))
	h.step()
	var reply api.SubmitReply
	if code := h.do("POST", "/api/v1/jobs?hold=true", jobSpec("held", 1, ""), &reply); code != http.StatusCreated {
		t.Fatalf("submit held: %d", code)
	}
	held := reply.ID
	queued := h.submit(jobSpec("queued", 1, ""))
	killed := h.submit(jobSpec("killed", 1, ""))
	if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", killed), nil, nil); code != http.StatusOK {
		t.Fatalf("kill: %d", code)
	}
	h.step()
	if j := h.job(held); j.State != "queued" || j.Held == nil || j.ShownState() != api.JobStateHeld {
		t.Fatalf("held job: %s, held %+v, shown %s; want queued, held", j.State, j.Held, j.ShownState())
	}

	for _, tt := range []struct {
		query string
		want  []int64
	}{
		{"state=held", []int64{held}},
		{"state=held&limit=10", []int64{held}},
		{"state=held&pool=default&user=root", []int64{held}},
		{"state=queued", []int64{held, queued}},
		{"state=held,running", []int64{running, held}},
		{"state=held,killed", []int64{held, killed}},
		{"state=held,killed&limit=10", []int64{held, killed}},
		{"state=queued,held", []int64{held, queued}},
		{"state=running", []int64{running}},
	} {
		t.Run(tt.query, func(t *testing.T) {
			var got []api.Job
			if strings.Contains(tt.query, "limit") {
				var page api.JobPage
				if code := h.do("GET", "/api/v1/jobs?"+tt.query, nil, &page); code != http.StatusOK {
					t.Fatalf("GET /jobs?%s: %d", tt.query, code)
				}
				got = page.Jobs
			} else if code := h.do("GET", "/api/v1/jobs?"+tt.query, nil, &got); code != http.StatusOK {
				t.Fatalf("GET /jobs?%s: %d", tt.query, code)
			}
			var ids []int64
			for _, j := range got {
				ids = append(ids, j.ID)
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tt.want) {
				t.Errorf("GET /jobs?%s: jobs %v, want %v", tt.query, ids, tt.want)
			}
		})
	}
	// The shown states that are no filter stay refused, naming held.
	code, body, _ := h.raw("GET", "/api/v1/jobs?state=holding", "")
	if code != http.StatusBadRequest || !strings.Contains(body, "queued, held, running") {
		t.Errorf("state=holding: %d %s; want 400 listing held", code, body)
	}
}
