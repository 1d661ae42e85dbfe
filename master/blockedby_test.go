package master

import (
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestBlockedByPrivate: a waiting job's blocker is marked private in
// every answer that names it (the job, both job lists, the explanation,
// a dry run) for a caller who may not read it, by redact.go's rule, so
// that a client shows its number without a link that would answer 403;
// an admin and the readers of its project see it unmarked.
func TestBlockedByPrivate(t *testing.T) {
	h := privacyHarness(t, "fifo")
	n1 := h.agent("n1", 4)
	h.submitAs("bob", `{"name": "train", "project": "nlp", "entrypoint": "x", "resources": {"slots": 4}}`)
	h.step()
	h.sync(n1)
	head := h.submitAs("bob", `{"name": "head", "project": "nlp", "entrypoint": "x", "resources": {"slots": 4}}`)
	alices := h.submitAs("alice", `{"name": "alice-wait", "project": "vision", "entrypoint": "x", "resources": {"slots": 4}}`)
	bobs := h.submitAs("bob", `{"name": "bob-wait", "project": "nlp", "entrypoint": "x", "resources": {"slots": 4}}`)
	h.step()
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	for _, tt := range []struct {
		name, token string
		job         int64
		private     bool
	}{
		{"a member of another project", h.as("alice"), alices, true},
		{"an admin", h.admin, alices, false},
		{"a member of the blocker's project", h.as("bob"), bobs, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]*api.Pending{}
			var j api.Job
			must200(t, h.doAs(tt.token, "GET", "/api/v1/jobs/"+id(tt.job), nil, &j), "job")
			got["job"] = j.Pending
			var list []api.Job
			must200(t, h.doAs(tt.token, "GET", "/api/v1/jobs", nil, &list), "list")
			var page api.JobPage
			must200(t, h.doAs(tt.token, "GET", "/api/v1/jobs?limit=50", nil, &page), "page")
			for what, js := range map[string][]api.Job{"list": list, "page": page.Jobs} {
				for _, l := range js {
					if l.ID == tt.job {
						got[what] = l.Pending
					}
				}
			}
			var x api.Explanation
			must200(t, h.doAs(tt.token, "GET", "/api/v1/jobs/"+id(tt.job)+"/explain", nil, &x), "explain")
			got["explain"] = x.Pending
			for _, what := range []string{"job", "list", "page", "explain"} {
				p := got[what]
				if p == nil || p.BlockedBy != head || p.BlockedByPrivate != tt.private {
					t.Errorf("%s: pending %+v, want blocked by %d, private %v", what, p, head, tt.private)
				}
			}
		})
	}
	t.Run("a dry run", func(t *testing.T) {
		// Later than the queued jobs, so that it is ordered behind them.
		h.clock.Advance(time.Minute)
		var d api.DryRun
		spec := `{"name": "would-wait", "project": "vision", "entrypoint": "x", "resources": {"slots": 4}}`
		must200(t, h.doAs(h.as("carol"), "POST", "/api/v1/jobs?dry_run=true", spec, &d), "dry run")
		if p := d.Pending; p == nil || p.BlockedBy != head || !p.BlockedByPrivate {
			t.Errorf("pending %+v, want blocked by %d, private", p, head)
		}
	})
}

// must200 fails t unless code is 200.
func must200(t *testing.T, code int, what string) {
	t.Helper()
	if code != 200 {
		t.Fatalf("%s: status %d", what, code)
	}
}
