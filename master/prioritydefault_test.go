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
// An explicit preemptible: false on a job the LOW cap applies to is
// refused (400, naming resources.preemptible), not dropped as it was: the
// job would run preemptible against what it says; the current CLI sends
// it only when the file names it.
func TestPriorityCapDefault(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, `default_project: nlp
projects:
  - {name: guest, max_priority_class: LOW}
  - {name: loworg, max_priority_class: LOW}
  - {name: lowteam, parent: loworg}
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
	notPreemptible := func(project string) string {
		return fmt.Sprintf(`{"name": "j", "project": %q, "kind": "command", "entrypoint": "x", "resources": {"slots": 1, "preemptible": false}}`, project)
	}
	h.as("bob", "guest=member", "lowteam=member", "vision=member", "nlp=member")
	h.as("lea", "guest=lead")
	for _, tc := range []struct {
		name, who, body string
		code            int
		says            string // the refusal
		field           string // the refusal's
		class           string // the job's, when accepted
		prio            int
	}{
		{"a member's job naming none under a LOW cap", "bob", plain("guest"), 201, "", "", "LOW", 80},
		{"a command, preemptible: false, under a LOW cap", "bob", notPreemptible("guest"), 400,
			"resources.preemptible: false: project guest caps its members' jobs at priority class LOW (max_priority_class), " +
				"which this job takes as it names no priority, and LOW work is always preemptible: leave preemptible out (or set it true) " +
				"to run it LOW and preemptible; work that must not be preempted needs a lead of project guest or an admin to submit it",
			"resources.preemptible", "", 0},
		{"the same under a parent's LOW cap", "bob", notPreemptible("lowteam"), 400,
			"project lowteam (by its parent loworg) caps its members' jobs at priority class LOW", "resources.preemptible", "", 0},
		{"a command, preemptible: true, under a LOW cap", "bob",
			`{"name": "j", "project": "guest", "kind": "command", "entrypoint": "x", "resources": {"slots": 1, "preemptible": true}}`, 201, "", "", "LOW", 80},
		{"a command, preemptible left out, under a LOW cap", "bob",
			`{"name": "j", "project": "guest", "kind": "command", "entrypoint": "x", "resources": {"slots": 1}}`, 201, "", "", "LOW", 80},
		{"the same without resources", "bob", `{"name": "j", "project": "guest", "entrypoint": "x"}`, 201, "", "", "LOW", 80},
		{"preemptible: false under a NORMAL cap", "bob", notPreemptible("vision"), 201, "", "", "NORMAL", 42},
		{"a member's job naming none under a NORMAL cap", "bob", plain("vision"), 201, "", "", "NORMAL", 42},
		{"a member's job naming none, no cap", "bob", plain("nlp"), 201, "", "", "NORMAL", 42},
		{"a member's NORMAL job under a LOW cap", "bob", named("guest", "NORMAL"), 403,
			"resources.priority_class: NORMAL: project guest caps its members' jobs at priority class LOW (max_priority_class)",
			"resources.priority_class", "", 0},
		{"a member's LOW job under a LOW cap", "bob", named("guest", "LOW"), 201, "", "", "LOW", 80},
		{"the lead's job naming none: not capped", "lea", plain("guest"), 201, "", "", "NORMAL", 42},
		{"the lead's job, preemptible: false: not capped", "lea", notPreemptible("guest"), 201, "", "", "NORMAL", 42},
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
				if e.Field != tc.field {
					t.Errorf("field %q, want %s", e.Field, tc.field)
				}
				return
			}
			var j api.Job
			must200(t, h.doAs(h.admin, "GET", fmt.Sprintf("/api/v1/jobs/%d", reply.ID), nil, &j), "get job")
			wantPreemptible := tc.class == "LOW" || !strings.Contains(tc.body, `"preemptible": false`) && j.Preemptible
			if j.PriorityClass != tc.class || j.Priority != tc.prio || j.Preemptible != wantPreemptible {
				t.Errorf("job %s %d preemptible %v; want %s %d, preemptible if LOW, not where it says false", j.PriorityClass, j.Priority, j.Preemptible, tc.class, tc.prio)
			}
		})
	}
}
