package master

import (
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestAPIHints: a refused request a client got almost right says what it
// meant: a misspelt field of a PATCH or a submission names the field, as
// job files and --set do; a PATCH of a field it does not take lists those
// it takes, and says that a job file's field is fixed at submission; and
// DELETE of a job points at its kill.
func TestAPIHints(t *testing.T) {
	h := newHarness(t)
	id := h.submit(jobSpec("a", 1, ""))
	ref := "/api/v1/jobs/" + strconv.FormatInt(id, 10)
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		want                     string
	}{
		{"patch typo", "PATCH", ref, `{"priorty": 5}`, 400, `unknown field "priorty"; did you mean "priority"?`},
		{"patch class typo", "PATCH", ref, `{"priority_clas": "LOW"}`, 400, `did you mean "priority_class"?`},
		{"submit typo", "POST", "/api/v1/jobs", `{"name": "x", "entrypont": "e"}`, 400, `did you mean "entrypoint"?`},
		{"nested typo", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "e", "resources": {"slot": 1}}`, 400, `did you mean "slots"?`},
		{"no guess", "PATCH", ref, `{"color": "red"}`, 400,
			`unknown field "color": PATCH changes a job's priority, priority_class, weight, time_limit, time_limit_s, qos and nice only`},
		{"patch of the slots", "PATCH", ref, `{"slots": 2}`, 400,
			`unknown field "slots": a job's slots is fixed when it is submitted (kill the job and submit it again to change it); PATCH changes its priority, priority_class, weight, time_limit, time_limit_s, qos and nice only`},
		{"patch of the GPU type", "PATCH", ref, `{"gpu": "h100"}`, 400, `unknown field "gpu": a job's gpu is fixed when it is submitted`},
		{"patch of min_slots", "PATCH", ref, `{"min_slots": 1, "priority": 5}`, 400, `unknown field "min_slots": a job's min_slots is fixed when it is submitted`},
		{"delete a job", "DELETE", ref, "", 405, "allows GET, PATCH; to kill the job, POST " + ref + "/kill"},
		{"delete the list", "DELETE", "/api/v1/jobs", "", 405, "allows GET, POST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			var e api.Error
			if code := h.do(tc.method, tc.path, body, &e); code != tc.code || !strings.Contains(e.Error, tc.want) {
				t.Fatalf("%s %s: %d %q, want %d and %q", tc.method, tc.path, code, e.Error, tc.code, tc.want)
			}
			if tc.name == "no guess" && strings.Contains(e.Error, "did you mean") {
				t.Errorf("a guess for a word like no field: %q", e.Error)
			}
			if tc.name == "delete the list" && strings.Contains(e.Error, "kill") {
				t.Errorf("the list's DELETE points at a kill: %q", e.Error)
			}
		})
	}
}
