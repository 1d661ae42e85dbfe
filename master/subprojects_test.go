package master

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestJobFilterSubprojects: project=P&subprojects=true lists the jobs of
// P and of every project under it, live and ended, listed or paged, as a
// parent's figures on GET /projects count them; without it the filter
// stays on the exact project.
func TestJobFilterSubprojects(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, projectTree)))
	a := h.agent("n1", 4)
	v := h.submit(`{"name": "v", "project": "vision", "entrypoint": "x", "resources": {"slots": 3}}`)
	n := h.submit(`{"name": "n", "project": "nlp", "entrypoint": "x", "resources": {"slots": 2}}`)
	h.submit(`{"name": "s", "project": "solo", "entrypoint": "x", "resources": {"slots": 1}}`)
	k := h.submit(`{"name": "k", "project": "nlp", "entrypoint": "x", "resources": {"slots": 1}}`)
	if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", k), nil, nil); code != 200 {
		t.Fatalf("kill: %d", code)
	}
	h.step()
	h.sync(a)
	cases := []struct {
		name  string
		query string
		want  []int64 // in id order
		code  int
	}{
		{"parent alone", "project=ml", nil, 200},
		{"parent with subprojects", "project=ml&subprojects=true", []int64{v, n, k}, 200},
		{"grandparent", "project=dept&subprojects=true", []int64{v, n, k}, 200},
		{"live only", "project=dept&subprojects=true&state=queued,running", []int64{v, n}, 200},
		{"ended only", "project=dept&subprojects=true&state=killed", []int64{k}, 200},
		{"leaf", "project=nlp&subprojects=true", []int64{n, k}, 200},
		{"paged", "project=dept&subprojects=true&limit=2", []int64{n, k}, 200},
		{"no project", "subprojects=true", nil, 400},
		{"bad value", "project=ml&subprojects=maybe", nil, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ids []int64
			path := "/api/v1/jobs?" + tc.query
			switch {
			case tc.code != 200:
				if code := h.do("GET", path, nil, nil); code != tc.code {
					t.Fatalf("%s: %d, want %d", path, code, tc.code)
				}
			case strings.Contains(tc.query, "limit="):
				var page api.JobPage
				if code := h.do("GET", path, nil, &page); code != tc.code {
					t.Fatalf("%s: %d, want %d", path, code, tc.code)
				}
				for _, j := range page.Jobs {
					ids = append(ids, j.ID)
				}
			default:
				var jobs []api.Job
				if code := h.do("GET", path, nil, &jobs); code != tc.code {
					t.Fatalf("%s: %d, want %d", path, code, tc.code)
				}
				for _, j := range jobs {
					ids = append(ids, j.ID)
				}
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tc.want) {
				t.Fatalf("%s: jobs %v, want %v", path, ids, tc.want)
			}
		})
	}
}
