package master

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/scenario"
)

// goneConfig has a quota pool, a multifactor pool that reads accounts
// and one that does not.
const goneConfig = `
pools:
  - {name: q, policy: quota}
  - {name: mf, policy: multifactor, multifactor: {fair_share: 1, fair_share_mode: classic}}
  - {name: mf0, policy: multifactor, multifactor: {qos: 1}}
nodes:
  - {name: n-q, pool: q}
  - {name: n-mf, pool: mf}
  - {name: n-mf0, pool: mf0}
projects:
  - {name: team, quota: 2}
  - {name: gone, quota: 2}
default_pool: q
default_project: team
`

// TestHistoryScenarioAlwaysParses: the live master accepts, with
// allow_infeasible, a job that can never run within its project's quota
// (it waits), and keeps the jobs of a
// project a reload removed; the export of either parsed to an error, as
// did a job of a multifactor pool without a fair_share weight next to one
// with (it named an account). Now
// the first is marked allow_infeasible and the removed project is
// declared with no quota (and as an account), so the file parses and
// replays, and its header says so; the job of the other pool names no
// account.
func TestHistoryScenarioAlwaysParses(t *testing.T) {
	cfg := mustConfig(t, goneConfig)
	after, err := config.Parse("after.yaml", []byte(strings.Replace(goneConfig, "  - {name: gone, quota: 2}\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withConfig(cfg))
	aq, amf, amf0 := h.agent("n-q", 4), h.agent("n-mf", 2), h.agent("n-mf0", 1)
	var reply api.SubmitReply
	if code := h.do("POST", "/api/v1/jobs?allow_infeasible=true", `{"name": "big", "project": "team", "pool": "q", "entrypoint": "x", "resources": {"slots": 4, "preemptible": false, "time_limit": 3600}}`, &reply); code != 201 {
		t.Fatalf("submit big: %d", code)
	}
	big := reply.ID
	gq := h.submit(`{"name": "gq", "project": "gone", "pool": "q", "entrypoint": "x", "resources": {"slots": 1, "preemptible": false}}`)
	gmf := h.submit(`{"name": "gmf", "project": "gone", "pool": "mf", "entrypoint": "x", "resources": {"slots": 1}}`)
	mf0 := h.submit(`{"name": "mf0", "project": "team", "pool": "mf0", "entrypoint": "x", "resources": {"slots": 1, "time_limit": 60}}`)
	h.step()
	h.sync(aq, amf, amf0, aq, amf, amf0)
	h.clock.Advance(time.Hour)
	aq.Exit(tid(gq, 0, 1), agent.OutcomeCompleted, 0)
	amf.Exit(tid(gmf, 0, 1), agent.OutcomeCompleted, 0)
	h.sync(aq, amf)
	h.m.mu.Lock()
	h.m.cfg = after // a reload that drops project gone
	h.m.pub.readStale = true
	h.m.mu.Unlock()

	sc, body := exportScenario(t, h, "?since=7d")
	jobs := map[string]scenario.Job{}
	for _, j := range sc.Jobs {
		jobs[j.Name] = j
	}
	name := func(id int64, n string) string { return "j" + strconv.FormatInt(id, 10) + "-" + n }
	if j := jobs[name(big, "big")]; !j.AllowInfeasible || j.Project != "team" {
		t.Errorf("big exported as %+v, want allow_infeasible in team\n%s", j, body)
	}
	if j := jobs[name(gq, "gq")]; !j.AllowInfeasible || j.Project != "gone" || j.Duration != 3600 {
		t.Errorf("gq exported as %+v, want an hour in project gone, allow_infeasible\n%s", j, body)
	}
	if j := jobs[name(gmf, "gmf")]; j.Account != "gone" || j.AllowInfeasible {
		t.Errorf("gmf exported as %+v, want charging account gone\n%s", j, body)
	}
	if j := jobs[name(mf0, "mf0")]; j.Account != "" {
		t.Errorf("mf0 exported as %+v, want no account: its pool weighs no fair share\n%s", j, body)
	}
	for _, want := range []string{`project "gone" is no longer configured`, "can never run here now"} {
		if !strings.Contains(body, "# Note: ") || !strings.Contains(body, want) {
			t.Errorf("the header does not say %q:\n%s", want, body)
		}
	}
	res := replayScenario(t, sc, -1)
	for _, j := range res.Jobs {
		if started := j.Start != nil; started != (j.Name == name(gmf, "gmf") || j.Name == name(mf0, "mf0")) {
			t.Errorf("replayed %s: started %v; only gmf and mf0 can run (the others need quota they do not have)", j.Name, started)
		}
	}
}
