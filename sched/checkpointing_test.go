package sched

import "testing"

// TestCheckpointingMessage: a job held on slots that drain says what
// frees them: a preemption, or the resize or move of running tasks,
// which run on and must not read as preempted.
func TestCheckpointingMessage(t *testing.T) {
	snap := func(allocs ...Alloc) *Snapshot {
		return &Snapshot{Jobs: []Job{{ID: "9", Pool: 0}, {ID: "10", Pool: 0}, {ID: "11", Pool: 1}}, Allocs: allocs}
	}
	draining := Alloc{Job: 0, Preempting: true, Moving: true}
	preempted := Alloc{Job: 0, Preempting: true}
	const (
		preemption = "slots were freed by preemption; waiting for the preempted tasks to checkpoint (needs 1 slot)"
		resize     = "slots are being freed by resizing job 9; waiting for its checkpoint (needs 1 slot)"
	)
	for _, tc := range []struct {
		name     string
		s        *Snapshot
		plan     *Plan
		isResize func(int) bool
		want     string
	}{
		{"the plan resizes for it", snap(Alloc{Job: 0}), &Plan{Resizes: []Resize{{Alloc: 0, For: 1}}}, nil, resize},
		{"the plan moves for it", snap(Alloc{Job: 0}), &Plan{Moves: []Move{{Alloc: 0, For: 1}}}, nil,
			"slots are being freed by moving job 9; waiting for its checkpoint (needs 1 slot)"},
		{"the plan also preempts for it", snap(Alloc{Job: 0}, Alloc{Job: 2}),
			&Plan{Resizes: []Resize{{Alloc: 0, For: 1}}, Preemptions: []Preemption{{Alloc: 1, For: 1}}}, nil, preemption},
		{"a resize for another job", snap(Alloc{Job: 0}, preempted), &Plan{Resizes: []Resize{{Alloc: 0, For: 2}}}, nil, preemption},
		{"preempted in an earlier pass", snap(preempted), &Plan{}, nil, preemption},
		{"resized in an earlier pass, told apart", snap(draining), nil, func(int) bool { return true }, resize},
		{"re-placed in an earlier pass, not told apart", snap(draining), nil, nil,
			"slots are being freed by moving or resizing job 9; waiting for its checkpoint (needs 1 slot)"},
		{"a preempted task drains beside the resized one", snap(draining, preempted), nil,
			func(a int) bool { return a == 0 }, preemption},
		{"a preempted task of another pool", snap(draining, Alloc{Job: 2, Preempting: true}), nil, nil,
			"slots are being freed by moving or resizing job 9; waiting for its checkpoint (needs 1 slot)"},
		{"nothing drains", snap(), nil, nil, preemption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CheckpointingMessage(tc.s, tc.plan, 1, 1, tc.isResize); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
