package master

import (
	"strconv"
	"strings"
	"testing"
)

// TestExplainElasticHeldPriority: in a priority pool an elastic task
// grows before strictly less important jobs start (sched's
// TestElasticGrowsAhead), so explain names only the waiting jobs at least
// as important as the elastic job: a LOW job waiting for slots does not
// hold it back, a NORMAL one does.
func TestExplainElasticHeldPriority(t *testing.T) {
	tests := []struct {
		name, waiter string // the waiting job's resources past its slots
		named        bool   // explain names it as holding el back
		says         string
	}{
		{"a LOW job waits", `, "priority": 80, "preemptible": true`, false,
			"It holds 2 of its 4 slots; no job of pool default at least as important waits for slots, so it grows, doubling, at a pass where the doubled task fits on free slots."},
		{"a NORMAL job waits", "", true,
			"It holds 2 of its 4 slots; it grows before less important jobs start, when no job of pool default at least as important waits for slots (job {w} waits)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: priority, preemption: true}\n")))
			n1 := h.agent("n1", 4)
			h.submit(jobSpec("r1", 2, ""))
			h.step()
			h.sync(n1, n1)
			el := h.submit(jobSpec("el", 4, `, "min_slots": 1, "preemptible": true`))
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
