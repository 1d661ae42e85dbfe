package master

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestPriorityCapDefault: a member's job that names no priority takes its
// project's max_priority_class when that is below the default (NORMAL),
// and is preemptible as LOW work is; one that names a class above the cap
// is refused as before, naming it; the project's lead, who is not capped,
// keeps the default (trial 2026-11-29c C9: refused for the default 42).
func TestPriorityCapDefault(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, `default_project: nlp
projects:
  - {name: guest, max_priority_class: LOW}
  - {name: vision, max_priority_class: NORMAL}
  - {name: nlp}
`)))
	h.agent("n1", 8)
	named := func(project, class string) string {
		return fmt.Sprintf(`{"name": "j", "project": %q, "entrypoint": "x", "resources": {"slots": 1, "priority_class": %q}}`, project, class)
	}
	plain := func(project string) string {
		return fmt.Sprintf(`{"name": "j", "project": %q, "entrypoint": "x", "resources": {"slots": 1}}`, project)
	}
	h.as("bob", "guest=member", "vision=member", "nlp=member")
	h.as("lea", "guest=lead")
	for _, tc := range []struct {
		name, who, body string
		code            int
		says            string // the refusal
		class           string // the job's, when accepted
		prio            int
	}{
		{"a member's job naming none under a LOW cap", "bob", plain("guest"), 201, "", "LOW", 80},
		{"a command, preemptible: false as the CLI sends it", "bob",
			`{"name": "j", "project": "guest", "kind": "command", "entrypoint": "x", "resources": {"slots": 1, "preemptible": false}}`, 201, "", "LOW", 80},
		{"the same without resources", "bob", `{"name": "j", "project": "guest", "entrypoint": "x"}`, 201, "", "LOW", 80},
		{"a member's job naming none under a NORMAL cap", "bob", plain("vision"), 201, "", "NORMAL", 42},
		{"a member's job naming none, no cap", "bob", plain("nlp"), 201, "", "NORMAL", 42},
		{"a member's NORMAL job under a LOW cap", "bob", named("guest", "NORMAL"), 403,
			"resources.priority_class: NORMAL: project guest caps its members' jobs at priority class LOW (max_priority_class)", "", 0},
		{"a member's LOW job under a LOW cap", "bob", named("guest", "LOW"), 201, "", "LOW", 80},
		{"the lead's job naming none: not capped", "lea", plain("guest"), 201, "", "NORMAL", 42},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := h.as(tc.who)
			var d api.DryRun
			if code := h.doAs(tok, "POST", "/api/v1/jobs?dry_run=true", tc.body, &d); code != tc.code && !(tc.code == 201 && code == 200) {
				t.Errorf("dry run: %d, want it as the submission's %d", code, tc.code)
			}
			var e api.Error
			var reply api.SubmitReply
			out := any(&reply)
			if tc.code != 201 {
				out = &e
			}
			code := h.doAs(tok, "POST", "/api/v1/jobs", tc.body, out)
			if code != tc.code || !strings.Contains(e.Error, tc.says) {
				t.Fatalf("submit: %d %q, want %d saying %q", code, e.Error, tc.code, tc.says)
			}
			if code != 201 {
				if e.Field != "resources.priority_class" {
					t.Errorf("field %q, want resources.priority_class", e.Field)
				}
				return
			}
			var j api.Job
			must200(t, h.doAs(h.admin, "GET", fmt.Sprintf("/api/v1/jobs/%d", reply.ID), nil, &j), "get job")
			if j.PriorityClass != tc.class || j.Priority != tc.prio || tc.class == "LOW" && !j.Preemptible {
				t.Errorf("job %s %d preemptible %v; want %s %d, preemptible if LOW", j.PriorityClass, j.Priority, j.Preemptible, tc.class, tc.prio)
			}
		})
	}
}
