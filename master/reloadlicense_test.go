package master

import (
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReloadLicenseWithLiveJobs (trial 29g G1): a reload that drops a
// license live jobs hold or wait for is refused, naming them, as one
// that drops their project is; one that lowers its total (to 0 too) is
// taken, and its reply and the master's log name the jobs that use it,
// and the waiting one that can never start under the new total; one
// that raises it warns of nothing. Each reply says what changed. A
// master that starts without the license logs the jobs that use it.
func TestReloadLicenseWithLiveJobs(t *testing.T) {
	logs := &lockedBuffer{}
	file := func(licenses string) string {
		return "default_pool: fifo\npools: [{name: fifo, policy: fifo}]\n" + licenses
	}
	withFile, path := withConfigFile(t, file("licenses: {matlab: 1}\n"))
	h := newHarness(t, withFile, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	a := h.agent("n1", 2)
	lic := `, "licenses": {"matlab": 1}`
	running, waiting := h.submit(jobSpec("licj", 1, lic)), h.submit(jobSpec("licj", 1, lic))
	h.step()
	h.sync(a)
	if s := h.job(running).State; s != "running" {
		t.Fatalf("job %d %s, want running", running, s)
	}
	users := fmt.Sprintf("jobs %d (running, holds 1), %d (queued, waits for 1 per task)", running, waiting)
	cases := []struct {
		name, file string
		code       int
		refusal    string   // in the error, for code 400
		warnings   []string // each a prefix of the warning in its place
		changes    []string
		total      int // matlab's total in force after it
	}{
		{"dropped", file(""), 400, "drops the license that live jobs hold or wait for: license matlab: " + users +
			": keep the license until they end (a total of 0 lets the running ones finish and starts nothing new)", nil, nil, 1},
		{"lowered to 0", file("licenses: {matlab: 0}\n"), 200, "", []string{
			"license matlab: total lowered from 1 to 0, but " + users + " use it: running tasks keep what they hold and finish; " +
				"waiting ones start only when enough are free under the new total; job " + strconv.FormatInt(waiting, 10) +
				" needs more per task than the total: it can never start until the total is raised again"},
			[]string{"license matlab: total 1 → 0"}, 0},
		{"raised", file("licenses: {matlab: 2, comsol: 1}\n"), 200, "", nil,
			[]string{"license matlab: total 0 → 2", "license comsol added (total 1)"}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			writeConfig(t, path, tc.file)
			code, body, _ := h.raw("POST", "/api/v1/config/reload", "")
			if code != tc.code {
				t.Fatalf("POST /config/reload: %d %s, want %d", code, body, tc.code)
			}
			if i := h.m.Config().LicenseIndex("matlab"); i < 0 || h.m.Config().Licenses[i].Total != tc.total {
				t.Errorf("matlab in force: %+v, want a total of %d", h.m.Config().Licenses, tc.total)
			}
			reply, ok := reloadReply(t, code, body, tc.refusal)
			if !ok {
				return
			}
			if len(reply.Warnings) != len(tc.warnings) || slices.ContainsFunc(tc.warnings, func(w string) bool {
				return !strings.HasPrefix(reply.Warnings[slices.Index(tc.warnings, w)], w)
			}) {
				t.Errorf("warnings %q, want %q", reply.Warnings, tc.warnings)
			}
			for _, w := range reply.Warnings {
				if !strings.Contains(logs.String(), strconv.Quote("configuration reloaded: "+w)) {
					t.Errorf("the master's log lacks %q", w)
				}
			}
			if !slices.Equal(reply.Changes, tc.changes) {
				t.Errorf("changes %q, want %q", reply.Changes, tc.changes)
			}
		})
	}
	// A master that starts without the license keeps the jobs and says so.
	writeConfig(t, path, file(""))
	want := "configuration: license matlab is not configured, but " + users + " use it: the running ones go on"
	if log := startLogs(t, h, path, logs); !logged(log, want) {
		t.Errorf("the master's log at start lacks %q:\n%s", want, log)
	}
}
