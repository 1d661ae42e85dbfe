package master

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// auditDetailConfig is jobUpdateConfig's, with a second project whose
// members may not read lab's jobs.
const auditDetailConfig = `
pools: [{name: default, policy: multifactor, multifactor: {qos: 1000}}]
default_project: lab
qos:
  - {name: normal}
  - {name: high, priority: 10}
projects:
  - {name: lab, qos: [normal, high]}
  - {name: other}
`

// newestAudit returns the newest audit entry whose action is action.
func (h *harness) newestAudit(action string) api.AuditEntry {
	h.t.Helper()
	var es []api.AuditEntry
	if code := h.do("GET", "/api/v1/audit?last=50", nil, &es); code != http.StatusOK {
		h.t.Fatalf("GET /audit: %d", code)
	}
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Action == action {
			return es[i]
		}
	}
	h.t.Fatalf("no audit entry %s in %+v", action, es)
	return api.AuditEntry{}
}

// TestAuditDetailOfChanges: a change that succeeds is audited with what
// it changed, as a refusal is with its error: a job's PATCH names each
// field old → new, a user's PATCH says disabled or enabled (the two no
// longer read the same), a kill says killed, a drain its reason, a
// resume the drain it ended, a reload what it added and removed, a token
// whose it is (never its secret).
func TestAuditDetailOfChanges(t *testing.T) {
	withFile, file := withConfigFile(t, auditDetailConfig)
	h := newHarness(t, withFile)
	h.as("ana", "lab=member")
	id := h.submitAs("ana", jobSpec("j", 1, `, "time_limit": "10m"`))
	h.agent("n1", 2)
	jobPath := fmt.Sprintf("/api/v1/jobs/%d", id)
	cases := []struct {
		name, method, path string
		body               any
		want               string
		before             func()
	}{
		{"a time limit", "PATCH", jobPath, `{"time_limit": "90s"}`, "time_limit 10m → 1m30s", nil},
		{"qos and nice", "PATCH", jobPath, `{"qos": "high", "nice": 50}`, "qos normal (default) → high, nice 0 → 50", nil},
		{"priority and weight", "PATCH", jobPath, `{"priority": 5, "weight": 3}`, "priority 42 → 5, weight 1 → 3", nil},
		{"nothing", "PATCH", jobPath, `{"weight": 3}`, "no change", nil},
		{"a disable", "PATCH", "/api/v1/users/ana", `{"disabled": true}`, "disabled", nil},
		{"an enable", "PATCH", "/api/v1/users/ana", `{"disabled": false}`, "enabled", nil},
		{"a role", "PATCH", "/api/v1/users/ana", `{"roles": {"lab": "lead"}}`, "role on lab: member → lead", nil},
		{"a drain", "POST", "/api/v1/nodes/n1/drain", api.NodeDrainRequest{Reason: "bad fan"}, "drained: bad fan", nil},
		{"a resume", "POST", "/api/v1/nodes/n1/resume", nil, "resumed (drained since 2026-05-01T12:00:00Z by root: bad fan)", nil},
		{"a reload", "POST", "/api/v1/config/reload", nil, "pools +0 -0, projects +0 -0, qos +0 -0, licenses +0 -0", nil},
		{"a reload that adds a project", "POST", "/api/v1/config/reload", nil, "pools +0 -0, projects +1 -0 (+vision), qos +0 -0",
			func() { writeConfig(t, file, auditDetailConfig+"  - {name: vision}\n") }},
		{"a kill", "POST", jobPath + "/kill", nil, "killed", nil},
		{"a kill of an ended job", "POST", jobPath + "/kill", nil, "had already ended: nothing killed", nil},
		{"a token", "POST", "/api/v1/tokens", api.NewToken{Kind: api.TokenUser, User: "ana", Note: "ci"}, `(user of ana, note "ci")`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before()
			}
			var reply map[string]any
			if code := h.do(tc.method, tc.path, tc.body, &reply); code >= 300 {
				t.Fatalf("%s %s: %d %v", tc.method, tc.path, code, reply)
			}
			e := h.newestAudit(tc.method + " " + tc.path)
			if !strings.Contains(e.Detail, tc.want) {
				t.Fatalf("audit detail %q, want %q", e.Detail, tc.want)
			}
			if secret, _ := reply["secret"].(string); secret != "" && strings.Contains(e.Detail, secret) {
				t.Fatalf("audit detail %q names the token's secret", e.Detail)
			}
		})
	}
	t.Run("a token's revoke", func(t *testing.T) {
		var created api.CreatedToken
		if code := h.do("POST", "/api/v1/tokens", api.NewToken{Kind: api.TokenUser, User: "ana", Note: "old"}, &created); code != 201 {
			t.Fatalf("create a token: %d", code)
		}
		path := fmt.Sprintf("/api/v1/tokens/%d/revoke", created.Token.ID)
		if code := h.do("POST", path, nil, nil); code != http.StatusOK {
			t.Fatalf("revoke: %d", code)
		}
		want := fmt.Sprintf(`revoked token %d (user of ana, note "old")`, created.Token.ID)
		if e := h.newestAudit("POST " + path); e.Detail != want {
			t.Fatalf("audit detail %q, want %q", e.Detail, want)
		}
	})
	t.Run("a refusal keeps its error", func(t *testing.T) {
		if code := h.do("PATCH", "/api/v1/users/nobody", `{"disabled": true}`, nil); code != http.StatusNotFound {
			t.Fatalf("PATCH a user who does not exist: %d", code)
		}
		if e := h.newestAudit("PATCH /api/v1/users/nobody"); !strings.Contains(e.Detail, `user "nobody" does not exist`) {
			t.Fatalf("audit detail %q", e.Detail)
		}
	})
}

// TestJobEvents: GET /jobs/{id}/events lists the job's transitions and
// changes, oldest first, to whoever may read the job (its owner, its
// project's members, admins) and to no one else; limit and after page it.
func TestJobEvents(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, auditDetailConfig)))
	ana := h.as("ana", "lab=member")
	bob := h.as("bob", "other=member")
	cy := h.as("cy", "lab=viewer")
	id := h.submitAs("ana", jobSpec("j", 1, `, "time_limit": "10m"`))
	if code := h.doAs(ana, "PATCH", fmt.Sprintf("/api/v1/jobs/%d", id), `{"time_limit": "90s"}`, nil); code != 200 {
		t.Fatalf("PATCH: %d", code)
	}
	if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", id), nil, nil); code != 200 {
		t.Fatalf("kill: %d", code)
	}
	path := fmt.Sprintf("/api/v1/jobs/%d/events", id)
	cases := []struct {
		name, token, query string
		status             int
	}{
		{"its owner", ana, "", 200},
		{"its project's viewer", cy, "", 200},
		{"the admin", h.admin, "", 200},
		{"another project's member", bob, "", 403},
		{"a bad limit", ana, "?limit=0", 400},
		{"an unknown parameter", ana, "?since=1", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got api.JobEvents
			code := h.doAs(tc.token, "GET", path+tc.query, nil, &got)
			if code != tc.status {
				t.Fatalf("GET %s%s: %d, want %d", path, tc.query, code, tc.status)
			}
			if code != 200 {
				if len(got.Events) > 0 {
					t.Fatalf("a refusal listed events: %+v", got.Events)
				}
				return
			}
			var change, killed bool
			for i, e := range got.Events {
				if i > 0 && e.Seq <= got.Events[i-1].Seq {
					t.Fatalf("events out of order: %+v", got.Events)
				}
				change = change || e.Task == nil && strings.Contains(e.Reason, "time limit 10m0s → 1m30s")
				killed = killed || e.Task != nil && strings.Contains(e.Reason, "killed through the API")
			}
			if got.Job != id || !change || !killed {
				t.Fatalf("events of job %d: %+v; want the time limit's change and the kill", got.Job, got.Events)
			}
		})
	}
	t.Run("paged", func(t *testing.T) {
		var all, first, rest api.JobEvents
		h.do("GET", path, nil, &all)
		if code := h.do("GET", path+"?limit=1", nil, &first); code != 200 || len(first.Events) != 1 || !first.More {
			t.Fatalf("limit=1: %d %+v", code, first)
		}
		h.do("GET", fmt.Sprintf("%s?after=%d", path, first.Events[0].Seq), nil, &rest)
		if len(rest.Events) != len(all.Events)-1 || rest.More {
			t.Fatalf("after the first: %d events (more %v), want %d", len(rest.Events), rest.More, len(all.Events)-1)
		}
	})
	t.Run("no such job", func(t *testing.T) {
		if code := h.do("GET", "/api/v1/jobs/999/events", nil, nil); code != http.StatusNotFound {
			t.Fatalf("GET events of job 999: %d", code)
		}
	})
}

// TestAuditDetailOfCreations: a submission is audited against the job it
// made (its path, POST /jobs, names none) with what it asked for, and a
// node's deletion with the pool and GPUs it took away, and a user's
// creation against the user it made, named in its detail too.
func TestAuditDetailOfCreations(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, auditDetailConfig)))
	h.as("ana", "lab=member")
	cases := []struct {
		name string
		do   func() (action, target string)
		want string
	}{
		{"a submission", func() (string, string) {
			id := h.submitAs("ana", jobSpec("train", 2, `, "time_limit": "1h", "preemptible": true`))
			return "POST /api/v1/jobs", fmt.Sprintf("job %d", id)
		}, `submitted "train": project lab, pool default, 1 task of 2 GPUs, time_limit 1h, preemptible`},
		{"a node's deletion", func() (string, string) {
			h.agent("n9", 3)
			if code := h.do("DELETE", "/api/v1/nodes/n9", nil, nil); code != http.StatusOK {
				t.Fatalf("DELETE node n9: %d", code)
			}
			return "DELETE /api/v1/nodes/n9", "node n9"
		}, "deleted from pool default, 3 GPUs"},
		{"a user's creation", func() (string, string) {
			body := `{"name": "bo", "roles": {"lab": "member"}}`
			if code := h.do("POST", "/api/v1/users", body, nil); code != http.StatusCreated {
				t.Fatalf("POST /users: %d", code)
			}
			return "POST /api/v1/users", "user bo"
		}, "created user bo: member on lab"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			action, target := tc.do()
			e := h.newestAudit(action)
			if !strings.HasPrefix(e.Detail, tc.want) {
				t.Fatalf("audit detail %q, want it to start %q", e.Detail, tc.want)
			}
			if e.Target != target {
				t.Fatalf("audit target %q, want %q", e.Target, target)
			}
		})
	}
}
