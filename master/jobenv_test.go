package master

import (
	"fmt"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestJobEnvironmentOwnerAndAdminsOnly: a job's environment values (where
// users put secrets) go to its owner and admins alone; the project's
// other readers, its lead among them, see the names, each value hidden,
// and environment_hidden, in every answer that gives a job view. The
// agent that runs it still gets the values (TestSecretsGoOnlyToTheirNode).
func TestJobEnvironmentOwnerAndAdminsOnly(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, auditDetailConfig)))
	ana := h.as("ana", "lab=member")
	bo := h.as("bo", "lab=lead")
	cy := h.as("cy", "lab=viewer")
	id := h.submitAs("ana", `{"name": "s", "entrypoint": "e", "environment": {"HF_TOKEN": "hf_secret", "STEPS": "400"}, "resources": {"slots": 1}}`)
	jobPath := fmt.Sprintf("/api/v1/jobs/%d", id)
	type view struct {
		name, method, path string
		body               any
		one                bool // a single job, else a list or page
	}
	views := []view{
		{"GET /jobs/{id}", "GET", jobPath, nil, true},
		{"GET /jobs", "GET", "/api/v1/jobs", nil, false},
		{"GET /jobs paged", "GET", "/api/v1/jobs?limit=10", nil, false},
		{"PATCH /jobs/{id}", "PATCH", jobPath, `{"weight": 2}`, true},
	}
	readers := []struct {
		name, token string
		sees        bool
	}{
		{"its owner", ana, true},
		{"the admin", h.admin, true},
		{"the project's lead", bo, false},
		{"the project's viewer", cy, false},
	}
	for _, rd := range readers {
		for _, v := range views {
			if v.method == "PATCH" && rd.token == cy {
				continue // a viewer may not change it
			}
			t.Run(rd.name+" "+v.name, func(t *testing.T) {
				jobs := fetchJobs(t, h, rd.token, v.method, v.path, v.body, v.one)
				j, ok := jobs[id]
				if !ok {
					t.Fatalf("job %d not in the answer", id)
				}
				checkEnv(t, j, rd.sees)
			})
		}
	}
	t.Run("the kill's reply to the lead", func(t *testing.T) {
		var kr api.KillReply
		if code := h.doAs(bo, "POST", jobPath+"/kill", nil, &kr); code != 200 {
			t.Fatalf("kill: %d", code)
		}
		checkEnv(t, kr.Job, false)
	})
	for _, rd := range readers {
		t.Run(rd.name+" GET /jobs of ended jobs", func(t *testing.T) {
			checkEnv(t, fetchJobs(t, h, rd.token, "GET", "/api/v1/jobs?state=killed", nil, false)[id], rd.sees)
		})
	}
}

func fetchJobs(t *testing.T, h *harness, token, method, path string, body any, one bool) map[int64]api.Job {
	t.Helper()
	out := map[int64]api.Job{}
	switch {
	case one:
		var j api.Job
		if code := h.doAs(token, method, path, body, &j); code != 200 {
			t.Fatalf("%s %s: %d", method, path, code)
		}
		out[j.ID] = j
	case len(path) > len("/api/v1/jobs?limit") && path[:len("/api/v1/jobs?limit")] == "/api/v1/jobs?limit":
		var p api.JobPage
		if code := h.doAs(token, method, path, body, &p); code != 200 {
			t.Fatalf("%s %s: %d", method, path, code)
		}
		for _, j := range p.Jobs {
			out[j.ID] = j
		}
	default:
		var js []api.Job
		if code := h.doAs(token, method, path, body, &js); code != 200 {
			t.Fatalf("%s %s: %d", method, path, code)
		}
		for _, j := range js {
			out[j.ID] = j
		}
	}
	return out
}

func checkEnv(t *testing.T, j api.Job, sees bool) {
	t.Helper()
	want := map[string]string{"HF_TOKEN": "hf_secret", "STEPS": "400"}
	if !sees {
		want = map[string]string{"HF_TOKEN": api.HiddenValue, "STEPS": api.HiddenValue}
	}
	if fmt.Sprint(j.Environment) != fmt.Sprint(want) || j.EnvironmentHidden == sees {
		t.Fatalf("environment %v hidden %v, want %v hidden %v", j.Environment, j.EnvironmentHidden, want, !sees)
	}
}
