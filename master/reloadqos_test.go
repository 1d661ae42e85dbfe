package master

import (
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
)

// TestReloadWarnsOfDisallowedQOS: a reload that takes a QOS level off a
// project's list (its own, or its parent's) refuses new submissions at
// it, but the live jobs that have it keep it: the reload's reply and the
// master's log name them and say so, and so does the master's log when it
// starts with such a configuration. Jobs that name no QOS and take a
// default their project no longer allows are named apart. A reload that
// leaves every job's QOS allowed warns of nothing.
func TestReloadWarnsOfDisallowedQOS(t *testing.T) {
	logs := &lockedBuffer{}
	const head = "pools: [{name: default, policy: multifactor, multifactor: {qos: 1000, age: 1, max_age: 1h}}]\n" +
		"default_project: sandbox\nqos:\n  - {name: normal}\n  - {name: high, priority: 50}\n"
	projects := func(research, ops string) string {
		return head + "projects:\n  - {name: sandbox}\n  - {name: research, qos: [" + research + "]}\n  - {name: rl, parent: research}\n" +
			"  - {name: ops, qos: [" + ops + "]}\n"
	}
	before := projects("normal, high", "normal, high")
	withFile, path := withConfigFile(t, before)
	h := newHarness(t, withFile, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	h.agent("gpu-a", 1) // a node, so that the pool warns of nothing else; no pass runs, so every job stays queued
	job := func(project, qos string) int64 {
		q := ""
		if qos != "" {
			q = `, "qos": "` + qos + `"`
		}
		return h.submit(`{"name": "j", "project": "` + project + `", "entrypoint": "x", "resources": {"slots": 1` + q + `}}`)
	}
	high1, high2, normal, none := job("rl", "high"), job("ops", "high"), job("rl", "normal"), job("rl", "")
	wantHigh := fmt.Sprintf(`project rl may not use QOS "high" (the qos of its parent research: normal), but job %d (queued) has it: `+
		`jobs keep the QOS they were accepted with, and wait, start and run at it; only new submissions with it are refused`, high1)
	wantHigh2 := fmt.Sprintf(`project ops may not use QOS "high" (its qos: normal), but job %d (queued) has it: `, high2)
	wantNone := fmt.Sprintf(`project rl may not use QOS "normal" (the qos of its parent research: high), but job %d (queued) names no QOS and so takes it, the default: `, none)
	cases := []struct {
		name, file string
		warnings   []string // each a prefix of the warning in its place
	}{
		{"the same configuration", before, nil},
		{"high taken off research's list", projects("normal", "normal"),
			[]string{wantHigh, wantHigh2}},
		{"normal taken off, the default", projects("high", "normal, high"),
			[]string{fmt.Sprintf(`project rl may not use QOS "normal" (the qos of its parent research: high), but job %d (queued) has it: `, normal), wantNone}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			writeConfig(t, path, tc.file)
			var reply api.Reload
			if code := h.do("POST", "/api/v1/config/reload", nil, &reply); code != 200 {
				t.Fatalf("POST /config/reload: %d", code)
			}
			if len(reply.Warnings) != len(tc.warnings) || slices.ContainsFunc(tc.warnings, func(w string) bool {
				i := slices.Index(tc.warnings, w)
				return !strings.HasPrefix(reply.Warnings[i], w)
			}) {
				t.Fatalf("warnings %q, want %q", reply.Warnings, tc.warnings)
			}
			for _, w := range reply.Warnings {
				if !strings.Contains(logs.String(), strconv.Quote("configuration reloaded: "+w)) {
					t.Errorf("the master's log lacks %q", w)
				}
			}
			for _, id := range []int64{high1, high2} {
				if s := h.job(id).State; s != "queued" {
					t.Errorf("job %d %s, want queued (kept)", id, s)
				}
			}
		})
	}
	// A master that starts with the last configuration logs the same.
	if log := startLogs(t, h, path, logs); !logged(log, "configuration: "+wantNone) {
		t.Errorf("the master's log at start lacks %q:\n%s", wantNone, log)
	}
}

// startLogs starts h's master again with the configuration file at path
// (a master restarted with the file as it is now) and returns what it
// logged while starting.
func startLogs(t *testing.T, h *harness, path string, logs *lockedBuffer) string {
	t.Helper()
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	logs.take()
	h.opt.Config = cfg
	h.start()
	return logs.String()
}

// logged says whether a master's text log holds line as a quoted message
// begins ("configuration: ...").
func logged(log, line string) bool {
	return strings.Contains(log, strings.TrimSuffix(strconv.Quote(line), `"`))
}

// TestHistoryScenarioKeepsDisallowedQOS: a job accepted at a QOS that a
// reload then took off its project's list keeps it live, and the what-if
// export of its window marks it keep_qos, with a note, so that the file
// parses (the scenario parser refused it) and replays the job at it; a
// job whose QOS the list still allows is not marked.
func TestHistoryScenarioKeepsDisallowedQOS(t *testing.T) {
	const head = "pools: [{name: mf, policy: multifactor, multifactor: {qos: 1000, age: 1, max_age: 1h}}]\n" +
		"default_pool: mf\ndefault_project: ops\nqos:\n  - {name: normal}\n  - {name: high, priority: 50}\n" +
		"projects:\n  - {name: research, qos: [normal, high]}\n  - {name: rl, parent: research}\n"
	withFile, path := withConfigFile(t, head+"  - {name: ops, qos: [normal, high]}\n")
	h := newHarness(t, withFile)
	a := h.agent("n1", 1)
	job := func(project, qos string) int64 {
		return h.submit(`{"name": "j", "project": "` + project + `", "entrypoint": "x", "resources": {"slots": 1, "time_limit": 3600, "qos": "` + qos + `"}}`)
	}
	kept, allowed := job("rl", "high"), job("ops", "high")
	h.step()
	h.sync(a)
	writeConfig(t, path, strings.Replace(head, "{name: research, qos: [normal, high]}", "{name: research, qos: [normal]}", 1)+
		"  - {name: ops, qos: [normal, high]}\n")
	if code := h.do("POST", "/api/v1/config/reload", nil, nil); code != 200 {
		t.Fatalf("POST /config/reload: %d", code)
	}
	h.clock.Advance(time.Minute)
	sc, body := exportScenario(t, h, "?since=7d")
	marked := map[string]bool{}
	for _, j := range sc.Jobs {
		marked[j.Name] = j.KeepQOS
	}
	name := func(id int64) string { return "j" + strconv.FormatInt(id, 10) + "-j" }
	if got, ok := marked[name(kept)]; !ok || !got {
		t.Errorf("job %d exported without keep_qos (%v, %v):\n%s", kept, got, ok, body)
	}
	if got, ok := marked[name(allowed)]; !ok || got {
		t.Errorf("job %d exported with keep_qos (%v, %v):\n%s", allowed, got, ok, body)
	}
	want := fmt.Sprintf(`job %d keeps its QOS, as the live job does, though its project's list no longer allows it: project rl may not use QOS "high"`, kept)
	if !strings.Contains(body, want) {
		t.Errorf("the header does not say %q:\n%s", want, body)
	}
}
