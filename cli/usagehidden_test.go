package cli

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestPrintHiddenUsage: the usage table of a member notes the GPU-hours
// of the projects it may not read, which the rows leave out (trial
// 2026-11-29a A3); nothing when none is hidden.
func TestPrintHiddenUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		u    api.Usage
		want string
	}{
		{"one project", api.Usage{HiddenProjects: 1, HiddenGPUHours: 1.3214},
			"note: 1 other project used 1.32 GPU-hours in the window, not shown (you have no role there)\n"},
		{"two", api.Usage{HiddenProjects: 2, HiddenGPUHours: 4}, "note: 2 other projects used 4.00 GPU-hours"},
		{"none", api.Usage{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			printHiddenUsage(&b, tc.u)
			if got := b.String(); (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("note %q, want %q", got, tc.want)
			}
		})
	}
}
