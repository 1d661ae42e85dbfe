package master

import (
	"strconv"
	"strings"
	"testing"
)

// TestExplainElasticHeldPriority: in a priority or multifactor pool an
// elastic task grows before strictly less important jobs start (sched's
// TestElasticGrowsAhead, TestElasticGrowsAheadMultifactor), so explain
// names only the waiting jobs at least as important as the elastic job:
// a LOW job (or one of a lower multifactor priority) waiting for slots
// does not hold it back, a NORMAL one (one of the same priority) does.
func TestExplainElasticHeldPriority(t *testing.T) {
	const prioCfg = "pools:\n  - {name: default, policy: priority, preemption: true}\n"
	const mfCfg = "pools:\n  - {name: default, policy: multifactor, preemption: true, multifactor: {qos: 100}}\n"
	const high = `, "qos": "high"`
	tests := []struct {
		name, config string
		el, waiter   string // the elastic and the waiting job's resources past their slots
		named        bool   // explain names it as holding el back
		says         string
	}{
		{"a LOW job waits", prioCfg, "", `, "priority": 80, "preemptible": true`, false,
			"It holds 2 of its 4 slots; no job of pool default at least as important waits for slots, so it grows at a pass where slots are free: " +
				"before less important jobs start, to as much of its doubling as fits, else, doubling, once the doubled task fits."},
		{"a NORMAL job waits", prioCfg, "", "", true,
			"It holds 2 of its 4 slots; it grows before less important jobs start, when no job of pool default at least as important waits for slots (job {w} waits)."},
		{"multifactor: a job of lower priority waits", mfCfg, high, "", false,
			"It holds 2 of its 4 slots; no job of pool default of a multifactor priority of at least its 10 waits for slots, so it grows at a pass where slots are free: " +
				"before jobs of a lower multifactor priority start, to as much of its doubling as fits, else, doubling, once the doubled task fits."},
		{"multifactor: a job of the same priority waits", mfCfg, high, high, true,
			"It holds 2 of its 4 slots; it grows before jobs of a lower multifactor priority start, when no job of pool default of a multifactor priority of at least its 10 waits for slots (job {w} waits)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.config)))
			n1 := h.agent("n1", 4)
			h.submit(jobSpec("r1", 2, ""))
			h.step()
			h.sync(n1, n1)
			el := h.submit(jobSpec("el", 4, `, "min_slots": 1, "preemptible": true`+tt.el))
			h.step()
			h.sync(n1, n1)
			w := h.submit(jobSpec("w", 4, tt.waiter))
			h.step()
			h.sync(n1, n1)
			h.step()
			x := explainAs(t, h, h.admin, el)
			if x.State != "running" || x.Elastic == nil || len(x.Elastic.Held) != 1 || x.Elastic.Held[0] != 2 {
				t.Fatalf("explanation %+v, want el running, holding 2 of 4 slots", x)
			}
			if named := len(x.Elastic.Waiting) == 1 && x.Elastic.Waiting[0].ID == w; named != tt.named || len(x.Elastic.Waiting) > 1 {
				t.Fatalf("waiting %+v, want job w named: %v", x.Elastic.Waiting, tt.named)
			}
			checkSays(t, "summary", x.Summary, []string{strings.ReplaceAll(tt.says, "{w}", strconv.FormatInt(w, 10))}, nil)
		})
	}
}
