package master

import (
	"strconv"
	"strings"
	"testing"
)

// TestExplainElasticHeld: a running elastic job held below its size
// explained only "It is running."; it now says what it holds and the
// growth rule that keeps it there: a job of its pool waiting for slots
// (growth takes spare slots only), the pool's min_run_time, or, with
// neither, that it grows once the doubled task fits.
func TestExplainElasticHeld(t *testing.T) {
	tests := []struct {
		name, config string
		waiter       bool
		says         string
	}{
		{"a job waits for slots", "pools:\n  - {name: default, policy: fifo}\n", true,
			"It is running. It holds 2 of its 4 slots; it grows only on spare slots, when no job of pool default waits for slots (job {w} waits)."},
		{"min_run_time", "pools:\n  - {name: default, policy: priority, preemption: true, min_run_time: 10m}\n", false,
			"It holds 2 of its 4 slots; it grows no sooner than the pool's min_run_time (10m) after its start, at "},
		{"nothing waits", "pools:\n  - {name: default, policy: fifo}\n", false,
			"It holds 2 of its 4 slots; no job of pool default waits for slots, so it grows, doubling, at a pass where the doubled task fits on free slots."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, tt.config)))
			n1 := h.agent("n1", 4)
			h.submit(jobSpec("r1", 2, ""))
			h.step()
			h.sync(n1, n1)
			el := h.submit(jobSpec("el", 4, `, "min_slots": 1, "preemptible": true`))
			h.step()
			h.sync(n1, n1)
			ids := map[string]int64{}
			if tt.waiter {
				ids["w"] = h.submit(jobSpec("w", 4, ""))
			}
			h.step()
			h.sync(n1, n1)
			h.step()
			x := explainAs(t, h, h.admin, el)
			if x.State != "running" || x.Elastic == nil || len(x.Elastic.Held) != 1 || x.Elastic.Held[0] != 2 || x.Elastic.Slots != 4 {
				t.Fatalf("explanation %+v, want el running, holding 2 of 4 slots", x)
			}
			if tt.waiter && (len(x.Elastic.Waiting) != 1 || x.Elastic.Waiting[0].ID != ids["w"]) {
				t.Fatalf("waiting %+v, want job w", x.Elastic.Waiting)
			}
			says := tt.says
			if tt.waiter {
				says = strings.ReplaceAll(says, "{w}", strconv.FormatInt(ids["w"], 10))
			}
			checkSays(t, "summary", x.Summary, []string{says}, nil)
		})
	}
}
