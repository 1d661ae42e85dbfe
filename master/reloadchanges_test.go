package master

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// TestReloadSaysWhatChanged (trial p F15, F16): a reload's reply says
// what it changed in the pools' scheduling settings; the change is
// recorded, and the what-if export of a window that holds the reload
// notes it, as the replay runs the whole window under today's settings;
// a window after it, or a reload that changed nothing, notes nothing.
func TestReloadSaysWhatChanged(t *testing.T) {
	const easy = "default_pool: hpc\npools:\n  - {name: hpc, policy: backfill, reservations: easy}\n"
	withFile, path := withConfigFile(t, easy)
	h := newHarness(t, withFile)
	h.agent("n1", 2)
	t0 := h.clock.Now()
	h.submit(jobSpec("a", 1, ""))
	h.step()
	h.clock.Advance(time.Minute)
	reloads := []struct {
		name, file string
		changes    []string
	}{
		{"reservations made conservative", "default_pool: hpc\npools:\n  - {name: hpc, policy: backfill, reservations: conservative}\n",
			[]string{"pool hpc: reservations easy → conservative"}},
		{"the same again: nothing changed", "default_pool: hpc\npools:\n  - {name: hpc, policy: backfill, reservations: conservative}\n", nil},
	}
	for _, r := range reloads {
		writeConfig(t, path, r.file)
		var reply api.Reload
		if code := h.do("POST", "/api/v1/config/reload", nil, &reply); code != 200 {
			t.Fatalf("%s: POST /config/reload: %d", r.name, code)
		}
		if !slices.Equal(reply.Changes, r.changes) {
			t.Errorf("%s: changes %q, want %q", r.name, reply.Changes, r.changes)
		}
		h.clock.Advance(time.Minute)
	}
	cases := []struct {
		name        string
		from, until time.Time
		noted       bool
	}{
		{"a window that holds the reload", t0, h.clock.Now(), true},
		{"a window after it", t0.Add(90 * time.Second), h.clock.Now(), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, _ := h.raw("GET", "/api/v1/history/scenario"+window(c.from, c.until), "")
			if code != 200 {
				t.Fatalf("export: %d %s", code, body)
			}
			note := "a configuration reload at"
			if got := strings.Count(body, note); got != map[bool]int{true: 1, false: 0}[c.noted] {
				t.Fatalf("the export notes %d reloads, want noted %v:\n%s", got, c.noted, body)
			}
			if c.noted && !strings.Contains(body, "(at 60s) changed pool hpc: reservations easy → conservative") {
				t.Fatalf("the export's note does not say what the reload changed:\n%s", body)
			}
		})
	}
}

// TestReloadNotesProjectsAndLicenses (trial 29g G2, 29h H2): a reload
// that changes a project's quota, limit or shares, a license's total, a
// QOS level or default_qos, is
// recorded as one that changes a pool's settings is, and the what-if
// export of a window that holds it notes it, with the advice of a
// --since after it: the replay runs the whole window under the
// settings in force now.
func TestReloadNotesProjectsAndLicenses(t *testing.T) {
	file := func(vision, licenses string) string {
		return "default_pool: q\npools:\n  - {name: q, policy: quota}\ndefault_project: vision\nprojects:\n" +
			"  - {name: vision, " + vision + "}\n" + licenses
	}
	cases := []struct {
		name, was, now string
		changed        string
	}{
		{"a quota raised", file("quota: 4", ""), file("quota: 8", ""), "changed project vision: quota 4 → 8, over_quota_weight 4 → 8, shares 4 → 8"},
		{"a limit set", file("quota: 4", ""), file("quota: 4, limit: 6", ""), "changed project vision: limit none → 6"},
		{"a license lowered", file("quota: 4", "licenses: {matlab: 2}\n"), file("quota: 4", "licenses: {matlab: 1}\n"),
			"changed license matlab: total 2 → 1"},
		{"a license removed", file("quota: 4", "licenses: {matlab: 2}\n"), file("quota: 4", ""), "removed license matlab"},
		{"a QOS removed, another added (trial 29h H6)", file("quota: 4", "qos:\n  - {name: normal}\n  - {name: emergency, priority: 100}\n"),
			file("quota: 4", "qos:\n  - {name: normal}\n  - {name: high, priority: 70}\n"),
			"added qos high (priority 70); removed qos emergency"},
		{"default_qos (trial 29h H2)", file("quota: 4", "qos:\n  - {name: normal}\n  - {name: emergency, priority: 100}\ndefault_qos: normal\n"),
			file("quota: 4", "qos:\n  - {name: normal}\n  - {name: emergency, priority: 100}\ndefault_qos: emergency\n"),
			"changed default_qos: normal → emergency"},
		{"a QOS's priority and preemption", file("quota: 4", "qos:\n  - {name: normal}\n  - {name: emergency, priority: 100, preempt: true}\n"),
			file("quota: 4", "qos:\n  - {name: normal}\n  - {name: emergency, priority: 50}\n"),
			"changed qos emergency: priority 100 → 50, preempt true → false"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			withFile, path := withConfigFile(t, tc.was)
			h := newHarness(t, withFile)
			h.agent("n1", 2)
			t0 := h.clock.Now()
			h.submit(jobSpec("a", 1, ""))
			h.step()
			h.clock.Advance(time.Minute)
			writeConfig(t, path, tc.now)
			if code, body, _ := h.raw("POST", "/api/v1/config/reload", ""); code != 200 {
				t.Fatalf("POST /config/reload: %d %s", code, body)
			}
			h.clock.Advance(time.Minute)
			code, body, _ := h.raw("GET", "/api/v1/history/scenario"+window(t0, h.clock.Now()), "")
			if code != 200 {
				t.Fatalf("export: %d %s", code, body)
			}
			for _, want := range []string{"(at 60s) " + tc.changed + ";", "give a --since after the reload"} {
				if !strings.Contains(body, want) {
					t.Errorf("the export's note lacks %q:\n%s", want, body)
				}
			}
		})
	}
}
