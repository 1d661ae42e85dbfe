package master

import (
	"fmt"
	"testing"
)

// TestPositionsAreTurns: a waiting job's position is its turn in the last
// pass (sched.Pending.Turn), the core's own order, whatever the policy:
// the master derives no order of its own for the jobs a pass has seen.
func TestPositionsAreTurns(t *testing.T) {
	const projects = "default_project: a\nprojects:\n  - {name: a, quota: 2}\n  - {name: b, quota: 2}\n"
	spec := func(name, project string, slots, priority int, preemptible bool) string {
		return fmt.Sprintf(`{"name": %q, "project": %q, "entrypoint": "x", "resources": {"slots": %d, "priority": %d, "preemptible": %v}}`,
			name, project, slots, priority, preemptible)
	}
	for _, policy := range []string{"fifo", "backfill", "priority", "fair_share", "quota",
		"multifactor, multifactor: {age: 1, max_age: 1h, job_size: 1}"} {
		t.Run(policy, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: "+policy+"}\n"+projects)))
			n1 := h.agent("n1", 2)
			h.submit(spec("busy", "a", 2, 50, false))
			h.step()
			h.sync(n1)
			var ids []int64
			for i, w := range []struct {
				project         string
				slots, priority int
			}{{"a", 1, 30}, {"b", 2, 40}, {"a", 2, 10}, {"b", 1, 20}} {
				ids = append(ids, h.submit(spec(fmt.Sprintf("w%d", i), w.project, w.slots, w.priority, true)))
			}
			h.step()
			h.sync(n1)
			turns := map[int64]int{}
			h.m.lock()
			for _, id := range ids {
				if p := h.m.jobs[id].pending; p != nil {
					turns[id] = int(p.p.Turn)
				}
			}
			h.m.unlock()
			for _, id := range ids {
				if pos := h.job(id).Position; pos == 0 || pos != turns[id] {
					t.Errorf("job %d: position %d, turn %d in the last pass; want them equal and set", id, pos, turns[id])
				}
			}
		})
	}
}

// TestPositionsUnseenAfter: a job the last pass has not seen ranks after
// those it ranked, whatever its priority; the next pass ranks it.
func TestPositionsUnseenAfter(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: priority}\n")))
	n1 := h.agent("n1", 1)
	h.submit(jobSpec("busy", 1, `, "priority": 50, "preemptible": false`))
	h.step()
	h.sync(n1)
	low := h.submit(jobSpec("low", 1, `, "priority": 50`))
	h.step()
	high := h.submit(jobSpec("high", 1, `, "priority": 1`))
	if pl, ph := h.job(low).Position, h.job(high).Position; pl != 1 || ph != 2 {
		t.Fatalf("before a pass: positions %d (low), %d (high, unseen); want 1 and 2", pl, ph)
	}
	h.step()
	if pl, ph := h.job(low).Position, h.job(high).Position; pl != 2 || ph != 1 {
		t.Fatalf("after a pass: positions %d (low), %d (high); want 2 and 1", pl, ph)
	}
}
