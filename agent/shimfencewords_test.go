package agent

import (
	"strings"
	"testing"
	"time"
)

// TestFenceWords: each of the shim fence's three cases says what the
// master does, with the master as its subject, and asks for a checkpoint
// only where another attempt may resume from it (trial 2026-11-29h H6).
func TestFenceWords(t *testing.T) {
	at := time.Date(2026, 11, 29, 18, 3, 37, 0, time.UTC)
	for _, tt := range []struct {
		name          string
		held, killing bool
		want, not     []string
	}{
		{"requeued", false, false,
			[]string{"after which the master ends the attempt, and requeues the task elsewhere", "the task must checkpoint and exit by 2026-11-29 18:03:37 UTC"},
			[]string{"which it ends", "killed"}},
		{"being killed", false, true,
			[]string{"after which the master ends the attempt, which was being killed", "the task must exit by 2026-11-29 18:03:37 UTC"},
			[]string{"checkpoint", "requeues"}},
		{"held", true, false,
			[]string{"after which the master fails the attempt, as it held it only for lost_node_grace", "the task must exit by"},
			[]string{"checkpoint", "requeues"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := fenceWhy(21*time.Second+300*time.Millisecond, tt.held, tt.killing) + ": " + fenceAsk(tt.held, tt.killing, at)
			if !strings.HasPrefix(got, FenceStopped+": the agent was gone and the master not heard for 21s") {
				t.Errorf("got %q, want it to begin with the fence and the silence", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q, want it to say %q", got, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("got %q, want it not to say %q", got, n)
				}
			}
		})
	}
}
