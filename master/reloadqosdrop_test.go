package master

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestReloadDropsQOSOfLiveJobs (trial 29h H1): a reload that drops a
// QOS level that live jobs name is refused, naming the level and its
// jobs (running and queued) and what to do, as one that drops their
// license is; the configuration in force keeps the level. Dropping a
// level no live job names, or that only jobs naming no QOS (they take
// default_qos) would have taken, is taken.
func TestReloadDropsQOSOfLiveJobs(t *testing.T) {
	file := func(levels ...string) string {
		s := "default_pool: fifo\npools: [{name: fifo, policy: fifo}]\ndefault_qos: normal\nqos:\n  - {name: normal}\n"
		for _, l := range levels {
			s += "  - {name: " + l + "}\n"
		}
		return s
	}
	withFile, path := withConfigFile(t, file("high", "emergency", "low"))
	logs := &lockedBuffer{}
	h := newHarness(t, withFile, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	a := h.agent("n1", 1)
	running := h.submit(jobSpec("e", 1, `, "qos": "emergency"`))
	h.step()
	h.sync(a)
	if s := h.job(running).State; s != "running" {
		t.Fatalf("job %d %s, want running", running, s)
	}
	queued, queued2, none := h.submit(jobSpec("h", 1, `, "qos": "high"`)), h.submit(jobSpec("h", 1, `, "qos": "high"`)),
		h.submit(jobSpec("n", 1, ""))
	highJobs := fmt.Sprintf("qos high: jobs %d (queued), %d (queued)", queued, queued2)
	cases := []struct {
		name, file string
		code       int
		refusal    string // in the error, for code 400
		changes    []string
		kept       []string // levels in force after it
	}{
		{"high dropped", file("emergency", "low"), 400, "drops the QOS level that live jobs have: " + highJobs +
			": keep the level until they end, move them to a level it keeps (allot job update ID --qos LEVEL), " +
			"or kill them (allot job kill ID); the configuration in force is unchanged", nil, []string{"normal", "high", "emergency", "low"}},
		{"both dropped", file("low"), 400, fmt.Sprintf("drops the QOS levels that live jobs have: qos emergency: job %d (running); %s:",
			running, highJobs), nil, []string{"normal", "high", "emergency", "low"}},
		{"low dropped", file("high", "emergency"), 200, "", []string{"qos low removed"}, []string{"normal", "high", "emergency"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			writeConfig(t, path, tc.file)
			code, body, _ := h.raw("POST", "/api/v1/config/reload", "")
			if code != tc.code {
				t.Fatalf("POST /config/reload: %d %s, want %d", code, body, tc.code)
			}
			var kept []string
			for _, q := range h.m.Config().QOS {
				kept = append(kept, q.Name)
			}
			if !slices.Equal(kept, tc.kept) {
				t.Errorf("QOS levels in force %q, want %q", kept, tc.kept)
			}
			reply, ok := reloadReply(t, code, body, tc.refusal)
			if !ok {
				return
			}
			if !slices.Equal(reply.Changes, tc.changes) {
				t.Errorf("changes %q, want %q", reply.Changes, tc.changes)
			}
		})
	}
	if s := h.job(none).State; s != "queued" {
		t.Errorf("job %d %s, want queued", none, s)
	}
	// A master that starts without the levels (dropped from the file
	// while it was down) keeps the jobs and says so.
	writeConfig(t, path, file())
	want := fmt.Sprintf("configuration: the configuration lacks the QOS levels that live jobs have: qos emergency: job %d (running); %s: "+
		"the running ones go on; the waiting ones wait (unknown_qos)", running, highJobs)
	if log := startLogs(t, h, path, logs); !logged(log, want) {
		t.Errorf("the master's log at start lacks %q:\n%s", want, log)
	}
}

// reloadReply is a reload's answer (code, body) as a table case expects
// it: a refusal whose body holds refusal (ok false), or the decoded
// reply of a reload taken.
func reloadReply(t *testing.T, code int, body, refusal string) (reply api.Reload, ok bool) {
	t.Helper()
	if code != 200 {
		if !strings.Contains(body, refusal) {
			t.Errorf("refusal %s, want %q", body, refusal)
		}
		return reply, false
	}
	if err := json.Unmarshal([]byte(body), &reply); err != nil {
		t.Fatalf("reply %s: %v", body, err)
	}
	return reply, true
}
