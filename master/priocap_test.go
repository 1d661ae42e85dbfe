package master

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestPriorityCap: a project's max_priority_class caps the priority its
// members' jobs may take, at submission and by a change, and its
// subprojects' by inheritance; its leads and admins are not capped, and
// lowering a priority is never refused (trial 2026-11-29a A9: any
// member filed HIGH and preempted other projects' work).
func TestPriorityCap(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, `default_project: nlp
projects:
  - {name: vision, max_priority_class: NORMAL}
  - {name: team, max_priority_class: NORMAL}
  - {name: team-sub, parent: team}
  - {name: nlp}
`)))
	h.agent("n1", 8)
	job := func(project, class string) string {
		return fmt.Sprintf(`{"name": "j", "project": %q, "entrypoint": "x", "resources": {"slots": 1, "priority_class": %q}}`, project, class)
	}
	h.as("ann", "vision=member", "team-sub=member", "nlp=member")
	h.as("lea", "vision=lead")
	for _, tc := range []struct {
		name, who, body string
		code            int
		says            string
	}{
		// B21: the refusal names the field the file gave, with its value.
		{"a member's HIGH job in a capped project", "ann", job("vision", "HIGH"), 403,
			"resources.priority_class: HIGH: project vision caps its members' jobs at priority class NORMAL (max_priority_class)"},
		{"a member's job of priority 10 in a capped project", "ann",
			`{"name": "j", "project": "vision", "entrypoint": "x", "resources": {"slots": 1, "priority": 10}}`, 403,
			"resources.priority: 10: project vision caps its members' jobs at priority class NORMAL (max_priority_class)"},
		{"in a subproject by its parent's", "ann", job("team-sub", "HIGH"), 403, "project team-sub (by its parent team) caps"},
		{"a member's NORMAL job", "ann", job("vision", "NORMAL"), 201, ""},
		{"a member's HIGH job where nothing caps it", "ann", job("nlp", "HIGH"), 201, ""},
		{"the lead's HIGH job", "lea", job("vision", "HIGH"), 201, ""},
		{"the admin's HIGH job", "", job("vision", "HIGH"), 201, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := h.admin
			if tc.who != "" {
				tok = h.as(tc.who)
			}
			var e api.Error
			code := h.doAs(tok, "POST", "/api/v1/jobs", tc.body, &e)
			if code != tc.code || !strings.Contains(e.Error, tc.says) {
				t.Fatalf("submit: %d %q, want %d saying %q", code, e.Error, tc.code, tc.says)
			}
			if field, _, _ := strings.Cut(tc.says, ":"); code == 403 && strings.HasPrefix(tc.says, "resources.") && e.Field != field {
				t.Errorf("field %q, want %q (the file's)", e.Field, field)
			}
		})
	}
	var reply api.SubmitReply
	if code := h.doAs(h.as("ann"), "POST", "/api/v1/jobs", job("vision", "NORMAL"), &reply); code != 201 {
		t.Fatalf("submit: %d", code)
	}
	path := fmt.Sprintf("/api/v1/jobs/%d", reply.ID)
	for _, tc := range []struct {
		name string
		prio int
		code int
	}{
		{"raised into HIGH by a member", 5, 403},
		{"lowered by a member", 80, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code := h.doAs(h.as("ann"), "PATCH", path, map[string]any{"priority": tc.prio}, nil); code != tc.code {
				t.Fatalf("PATCH priority %d: %d, want %d", tc.prio, code, tc.code)
			}
		})
	}
}
