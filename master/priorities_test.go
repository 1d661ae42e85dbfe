package master

import (
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// prioritiesConfig is lateExitConfig's multifactor pool and a FIFO pool.
const prioritiesConfig = `
pools:
  - name: default
    policy: multifactor
    multifactor: {fair_share: 100, age: 10, max_age: 1h, fair_share_mode: classic}
  - {name: cpu, policy: fifo}
projects:
  - {name: a}
  - {name: b}
default_project: a
decay: {period: 5m, per_period: 0.5}
`

// TestPriorities: GET /priorities lists the waiting jobs of the
// multifactor pools in queue order, each with its factors whose weighted
// parts sum to its priority, the priority GET /jobs/{id} shows; a member
// of one project sees that project's jobs alone, as GET /jobs; a pool of
// another policy or no pool at all is a 400 naming the pool.
func TestPriorities(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, prioritiesConfig)))
	n1 := h.agent("n1", 1)
	h.submit(`{"name": "run", "entrypoint": "x", "project": "a", "resources": {"slots": 1}}`)
	h.step()
	h.sync(n1)
	a2 := h.submit(`{"name": "a2", "entrypoint": "x", "project": "a", "resources": {"slots": 1}}`)
	b2 := h.submit(`{"name": "b2", "entrypoint": "x", "project": "b", "resources": {"slots": 1}}`)
	h.clock.Advance(60e9)
	h.step()
	h.sync(n1)

	var all api.Priorities
	if code := h.do("GET", "/api/v1/priorities", nil, &all); code != http.StatusOK {
		t.Fatalf("GET /priorities: %d", code)
	}
	if len(all.Pools) != 1 || all.Pools[0].Pool != "default" || all.Pools[0].FairShare != 100 || all.Pools[0].Age != 10 {
		t.Errorf("pools %+v, want default's weights alone", all.Pools)
	}
	// a has used the node, b not: b's fair share ranks it first.
	if got := priorityIDs(all.Jobs); len(got) != 2 || got[0] != b2 || got[1] != a2 {
		t.Fatalf("jobs %v, want [%d %d] (b2 before a2)", got, b2, a2)
	}
	for i, j := range all.Jobs {
		w := j.Weighted
		if sum := w.Age + w.FairShare + w.JobSize + w.QOS + w.Pool - float64(w.Nice); math.Abs(sum-j.Priority) > 1e-9 {
			t.Errorf("job %d: weighted parts sum to %v, priority %v", j.ID, sum, j.Priority)
		}
		if math.Abs(w.FairShare-100*j.Factors.FairShare) > 1e-9 || j.Factors.FairShare < 0 || j.Factors.FairShare > 1 {
			t.Errorf("job %d: fair share %v weighted %v, want the factor times 100", j.ID, j.Factors.FairShare, w.FairShare)
		}
		if pending := h.job(j.ID).Pending; pending == nil || pending.Priority != j.Priority {
			t.Errorf("job %d: priority %v, GET /jobs/{id} pending %+v", j.ID, j.Priority, pending)
		}
		if j.Position != i+1 {
			t.Errorf("job %d: position %d, want %d", j.ID, j.Position, i+1)
		}
	}
	if all.Jobs[0].Priority <= all.Jobs[1].Priority {
		t.Errorf("priorities %v then %v, want the first higher", all.Jobs[0].Priority, all.Jobs[1].Priority)
	}

	t.Run("filters", func(t *testing.T) {
		for q, want := range map[string][]int64{"project=a": {a2}, "user=" + all.Jobs[0].User: {b2, a2}, "pool=default&project=b": {b2}} {
			var got api.Priorities
			if code := h.do("GET", "/api/v1/priorities?"+q, nil, &got); code != http.StatusOK || !slices.Equal(priorityIDs(got.Jobs), want) {
				t.Errorf("?%s: %d %v, want %v", q, code, priorityIDs(got.Jobs), want)
			}
		}
	})
	t.Run("member", func(t *testing.T) {
		var got api.Priorities
		if code := h.doAs(h.as("alice", "a=member"), "GET", "/api/v1/priorities", nil, &got); code != http.StatusOK {
			t.Fatalf("GET /priorities as a member of a: %d", code)
		}
		if !slices.Equal(priorityIDs(got.Jobs), []int64{a2}) {
			t.Errorf("a member of a sees %v, want [%d]: b's job left out as GET /jobs does", priorityIDs(got.Jobs), a2)
		}
	})
	t.Run("400", func(t *testing.T) {
		for q, want := range map[string]string{
			"pool=cpu":    `pool "cpu" has policy fifo, not multifactor`,
			"pool=nosuch": `pool "nosuch": no such pool (pools: default, cpu)`,
			"node=n1":     "node",
			"project=zz":  `project "zz": no such project`,
			"user=zz":     `user "zz": no such user`,
		} {
			var e api.Error
			if code := h.do("GET", "/api/v1/priorities?"+q, nil, &e); code != http.StatusBadRequest || !strings.Contains(e.Error, want) {
				t.Errorf("?%s: %d %+v, want 400 with %q", q, code, e, want)
			}
		}
	})
}

func priorityIDs(js []api.JobPriority) []int64 {
	out := []int64{}
	for _, j := range js {
		out = append(out, j.ID)
	}
	return out
}
