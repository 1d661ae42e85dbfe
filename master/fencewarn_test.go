package master

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestAgentTimeoutWarning: the master warns of an agent_timeout too
// short for the agents' fence (fencing.Bounds.Late) at its start, in its
// log, and at a reload, in the reply and the log, naming the file, the
// field and the least timeout that is not; a long enough timeout, or
// fence: false, warns of nothing. Every agent warned alone before, in
// logs the admin who set the timeout may never read.
func TestAgentTimeoutWarning(t *testing.T) {
	logs := &lockedBuffer{}
	withFile, path := withConfigFile(t, "agent_timeout: 20s\n")
	h := newHarness(t, withFile, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(logs, nil))
		o.SyncWait = DefaultSyncWait
	})
	short := func(timeout string) string {
		return path + ": agent_timeout: " + timeout + " is too short for agents to stop tasks before the master loses their node " +
			"(with the master's 10s long poll and the agents' default settings, 1s between polls, it needs at least 24s)"
	}
	if !strings.Contains(logs.String(), short("20s")) {
		t.Errorf("the master's log at its start lacks %q:\n%s", short("20s"), logs.String())
	}
	for _, tc := range []struct {
		name, file, want string
	}{
		{"long enough", "agent_timeout: 24s\n", ""},
		{"too short", "agent_timeout: 15s\n", short("15s")},
		{"too short, without the fence", "agent_timeout: 15s\nfence: false\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeConfig(t, path, tc.file)
			var reply api.Reload
			if code := h.do("POST", "/api/v1/config/reload", nil, &reply); code != 200 {
				t.Fatalf("POST /config/reload: %d", code)
			}
			var got []string
			for _, w := range reply.Warnings {
				if strings.Contains(w, "agent_timeout") {
					got = append(got, w)
				}
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("reload warnings %q, want none of agent_timeout", got)
			case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
				t.Errorf("reload warnings %q, want one beginning %q", got, tc.want)
			}
		})
	}
}

// TestAgentTimeoutWarningSyncWait: the rule reads the master's own long
// poll: a shorter one leaves the fence time under a shorter timeout.
func TestAgentTimeoutWarningSyncWait(t *testing.T) {
	cfg := mustConfig(t, "agent_timeout: 20s\n")
	for _, tc := range []struct {
		name     string
		syncWait time.Duration
		warns    bool
	}{
		{"the default long poll", 0, true},
		{"a 10s long poll", 10 * time.Second, true},
		{"a 5s long poll", 5 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := AgentTimeoutWarning("c.yaml", cfg, tc.syncWait); (got != "") != tc.warns {
				t.Errorf("AgentTimeoutWarning = %q, want a warning: %v", got, tc.warns)
			}
		})
	}
}

// TestFenceGraceWarnings: a pool whose file sets a grace longer than the
// agents' fence can give a task it stops when the master is silent is
// named, with its line, the grace the fence gives and the least
// agent_timeout that gives the full grace (trial 2026-11-29a A5); a
// grace that fits, a default grace, or fence: false warn of nothing.
func TestFenceGraceWarnings(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []string
	}{
		{"a 20s grace under the default timeout", "pools:\n  - {name: train, policy: priority, preemption: true, grace: 20s}\n",
			[]string{"c.yaml:3: pool train: grace 20s, but a preemptible task that the agents' fence stops (after 21s without a reply " +
				"from the master) gets only 6s to checkpoint before agent_timeout (30s); an agent_timeout of at least 46s gives it the full grace"}},
		{"a grace that fits", "agent_timeout: 46s\npools:\n  - {name: train, policy: priority, preemption: true, grace: 20s}\n", nil},
		{"the default grace", "pools:\n  - {name: train, policy: priority, preemption: true}\n", nil},
		{"fence off", "fence: false\npools:\n  - {name: train, policy: priority, preemption: true, grace: 20s}\n", nil},
		{"only the pool that sets it", "pools:\n  - {name: a, policy: fifo}\n  - {name: b, policy: fifo, grace: 2m}\n",
			[]string{"c.yaml:4: pool b: grace 2m0s, but"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FenceGraceWarnings("c.yaml", mustConfig(t, "default_pool: "+poolOf(tc.file)+"\n"+tc.file), DefaultSyncWait)
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("warning %q, want it to begin %q", got[i], w)
				}
			}
		})
	}
}

// poolOf is the first pool named in file.
func poolOf(file string) string {
	_, rest, _ := strings.Cut(file, "{name: ")
	name, _, _ := strings.Cut(rest, ",")
	return name
}
