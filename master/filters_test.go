package master

import (
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestJobFilters: GET /jobs filters by pool, project, user, state and
// node; a value that names nothing is a 400 that names it and lists the
// valid values, rather than an empty list that hides a typo.
func TestJobFilters(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 2)
	h.agent("n2", 2)
	run := h.submit(jobSpec("running", 2, ""))
	h.step()
	h.sync(a, a)
	queued := h.submit(jobSpec("queued", 4, ""))
	h.step()
	tests := []struct {
		name  string
		query string
		ids   []int64 // for 200
		error string  // for 400: a substring of the error
		field string
	}{
		{name: "no filter", query: "", ids: []int64{run, queued}},
		{name: "known pool", query: "pool=default", ids: []int64{run, queued}},
		{name: "default project", query: "project=default", ids: []int64{run, queued}},
		{name: "known user", query: "user=root", ids: []int64{run, queued}},
		{name: "user without jobs", query: "user=" + userWithoutJobs(h), ids: []int64{}},
		{name: "node running a task", query: "node=n1", ids: []int64{run}},
		{name: "idle node", query: "node=n2", ids: []int64{}},
		{name: "node and state", query: "node=n1&state=queued", ids: []int64{}},
		{name: "unknown pool", query: "pool=nosuch", error: `pool "nosuch": no such pool (pools: default)`, field: "pool"},
		{name: "unknown project", query: "project=nosuch", error: `project "nosuch": no such project (projects: default)`, field: "project"},
		{name: "unknown user", query: "user=nosuch", error: `user "nosuch": no such user (users: `, field: "user"},
		{name: "unknown node", query: "node=nosuch", error: `node "nosuch": no such node (nodes: n1, n2)`, field: "node"},
		{name: "unknown state", query: "state=done", error: `expected one of queued, held, running, killing, completed, failed, killed`, field: "state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.error != "" {
				var e api.Error
				if code := h.do("GET", "/api/v1/jobs?"+tt.query, nil, &e); code != 400 {
					t.Fatalf("status %d (%+v), want 400", code, e)
				}
				if !strings.Contains(e.Error, tt.error) || e.Field != tt.field {
					t.Errorf("error %q field %q, want one containing %q, field %q", e.Error, e.Field, tt.error, tt.field)
				}
				return
			}
			var jobs []api.Job
			if code := h.do("GET", "/api/v1/jobs?"+tt.query, nil, &jobs); code != 200 {
				t.Fatalf("status %d", code)
			}
			ids := []int64{}
			for _, j := range jobs {
				ids = append(ids, j.ID)
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tt.ids) {
				t.Errorf("ids %v, want %v", ids, tt.ids)
			}
		})
	}
}

// userWithoutJobs makes a user who has submitted nothing.
func userWithoutJobs(h *harness) string {
	h.as("idle")
	return "idle"
}

// TestUnknownUserFilter: a user filter naming no user is a 400 on the
// job list, the history, the usage and the priorities alike, not an empty
// answer that hides a typo; the users are listed to an admin only, not
// to a member, from whom the API keeps other projects' users (trial
// 2026-11-29b B9).
func TestUnknownUserFilter(t *testing.T) {
	h := newHarness(t)
	bob := h.as("bob", "default=member")
	paths := []string{"/api/v1/jobs?user=nosuch", "/api/v1/history?user=nosuch", "/api/v1/usage?user=nosuch&by=user", "/api/v1/priorities?user=nosuch"}
	for _, c := range []struct {
		name   string
		token  string
		listed bool
	}{{"admin", h.admin, true}, {"member", bob, false}} {
		for _, p := range paths {
			t.Run(c.name+" "+p, func(t *testing.T) {
				var e api.Error
				if code := h.doAs(c.token, "GET", p, nil, &e); code != 400 || e.Field != "user" {
					t.Fatalf("status %d (%+v), want 400 on the user", code, e)
				}
				if listed := strings.Contains(e.Error, "(users: "); !strings.HasPrefix(e.Error, `user "nosuch": no such user`) || listed != c.listed {
					t.Errorf("error %q, want no such user, the users listed: %v", e.Error, c.listed)
				}
			})
		}
	}
}
