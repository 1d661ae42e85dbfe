package master

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestSubmitChecksProjectQOS: a project's qos list (Slurm's AllowQOS)
// refuses jobs naming another level, or naming none when the default is
// not on the list; a project without a list takes its parent's; others
// may name any level. The refusal names resources.qos and whose list.
func TestSubmitChecksProjectQOS(t *testing.T) {
	cfg := mustConfig(t, `
pools: [{name: default, policy: priority}]
default_project: open
qos:
  - {name: normal}
  - {name: high, priority: 10}
  - {name: emergency, priority: 100, preempt: true}
projects:
  - {name: open}
  - {name: org, qos: [normal, high]}
  - {name: team, parent: org}
  - {name: lab, parent: org, qos: [normal, high]}
  - {name: strict, qos: [high]}
`)
	h := newHarness(t, withConfig(cfg))
	job := func(project, qos string) string {
		q := ""
		if qos != "" {
			q = `, "qos": "` + qos + `"`
		}
		return `{"name": "j", "project": "` + project + `", "entrypoint": "x", "resources": {"slots": 1` + q + `}}`
	}
	tests := []struct {
		name, body string
		status     int
		says       string
	}{
		{"a project without a list names any level", job("open", "emergency"), 201, ""},
		{"a level on the list", job("lab", "high"), 201, ""},
		{"a level off the list", job("lab", "emergency"), 400, `project lab may not use QOS "emergency" (its qos: normal, high)`},
		{"the parent's list", job("team", "emergency"), 400, `(the qos of its parent org: normal, high)`},
		{"the default, off the list", job("strict", ""), 400, "the job names none, so it would take the default QOS"},
		{"the default, on the list", job("lab", ""), 201, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e api.Error
			code := h.do("POST", "/api/v1/jobs", tc.body, &e)
			if code != tc.status {
				t.Fatalf("status %d (%+v), want %d", code, e, tc.status)
			}
			if tc.status != 201 && (e.Field != "resources.qos" || !strings.Contains(e.Error, tc.says)) {
				t.Fatalf("refusal %+v, want field resources.qos saying %q", e, tc.says)
			}
		})
	}
}

// TestSubmitRefusesWorkBeyondQuota: in a quota pool, work that may only
// run within its project's quota (not preemptible, or interactive) with
// a task larger than that quota, or than a limit, would wait for ever:
// refused (422) naming the field and the way out, as the simulator
// refuses it; preemptible work may run over quota on idle GPUs.
func TestSubmitRefusesWorkBeyondQuota(t *testing.T) {
	cfg := mustConfig(t, `
pools: [{name: default, policy: quota}]
default_project: sandbox
projects:
  - {name: sandbox, quota: 0}
  - {name: org, quota: 4, limit: 4}
  - {name: lab, parent: org, quota: 2}
`)
	h := newHarness(t, withConfig(cfg))
	h.agent("n1", 8)
	job := func(project string, slots int, extra string) string {
		return fmt.Sprintf(`{"name": "j", "project": %q, "entrypoint": "x", "resources": {"slots": %d%s}}`, project, slots, extra)
	}
	tests := []struct {
		name, path, body string
		status           int
		field, says      string
	}{
		{"not preemptible, beyond the quota", "/api/v1/jobs", job("sandbox", 1, ""), 422, "resources.slots",
			"can never run within project sandbox's quota of 0 in quota pool default"},
		{"preemptible: idle GPUs over quota", "/api/v1/jobs", job("sandbox", 1, `, "preemptible": true`), 201, "", ""},
		{"elastic: its smallest task counts", "/api/v1/jobs", job("lab", 4, `, "min_slots": 3`), 422, "resources.min_slots",
			"a task of 3 slots can never run within project lab's quota of 2"},
		{"a parent's limit", "/api/v1/jobs", job("lab", 6, `, "preemptible": true`), 422, "resources.slots",
			"can never run under project org's limit of 4"},
		{"allow_infeasible queues it", "/api/v1/jobs?allow_infeasible=true", job("sandbox", 1, ""), 201, "", ""},
		// Trial 2026-11-29e E6: the limit caps borrowing work too; a
		// LOW job past it was accepted and waited for ever.
		{"LOW past a parent's limit", "/api/v1/jobs", job("lab", 6, `, "priority_class": "LOW"`), 422, "resources.slots",
			"a task of 6 slots can never run under project org's limit of 4 in quota pool default"},
		{"LOW past the limit, allow_infeasible", "/api/v1/jobs?allow_infeasible=true", job("lab", 6, `, "priority_class": "LOW"`), 201, "", ""},
		{"LOW within the limit borrows, past its quota", "/api/v1/jobs", job("lab", 4, `, "priority_class": "LOW"`), 201, "", ""},
		// Trial 2026-11-29c C3: the pool's size binds first; the quota's
		// advice (submit it preemptible) could not help.
		{"beyond the pool too: its size first", "/api/v1/jobs", job("sandbox", 100, ""), 422, "resources.slots",
			"a task needs 100 slots, but the slots of pool default add up to 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e api.Error
			code := h.do("POST", tc.path, tc.body, &e)
			if code != tc.status {
				t.Fatalf("status %d (%+v), want %d", code, e, tc.status)
			}
			if tc.status != 201 && (e.Field != tc.field || !strings.Contains(e.Error, tc.says)) {
				t.Fatalf("refusal %+v, want field %s saying %q", e, tc.field, tc.says)
			}
			if strings.Contains(tc.says, "slots of pool") && strings.Contains(e.Error, "preemptible") {
				t.Errorf("refusal %q advises preemptible work, which the pool's size refuses too", e.Error)
			}
		})
	}
}
