package lifecycle

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/sched"
)

// scripted is a Driver whose passes change what its script says,
// whatever the plans; it records what Settle asked of it.
type scripted struct {
	snap    sched.Snapshot
	idle    []bool // by pass, before it; past the end false
	applied [][2]int
	again   []bool
	oneShot bool
	// replacing and drained are the tasks the skips ask about.
	replacing, drained map[int32]bool

	built, carried []int // the passes built and carried, from 1
	got            [][]Effect
}

func (d *scripted) at(bs []bool, pass int) bool { return pass < len(bs) && bs[pass] }

func (d *scripted) Idle() bool { return d.at(d.idle, len(d.built)) }

func (d *scripted) Build() (*sched.Snapshot, []int32) {
	d.built = append(d.built, len(d.built)+1)
	return &d.snap, nil
}

func (d *scripted) Scheduled(*sched.Plan, error) error { return nil }

func (d *scripted) Carry(*sched.Plan) { d.carried = append(d.carried, len(d.built)) }

func (d *scripted) Replacing(ti int32) bool { return d.replacing[ti] }

func (d *scripted) OnDrained(ti int32) bool { return d.drained[ti] }

func (d *scripted) Apply(_ *sched.Plan, effects []Effect) (int, int, error) {
	d.got = append(d.got, append([]Effect(nil), effects...))
	pass := len(d.built) - 1
	if pass < len(d.applied) {
		return d.applied[pass][0], d.applied[pass][1], nil
	}
	return 0, 0, nil
}

func (d *scripted) Again() bool { return d.at(d.again, len(d.built)-1) }

func (d *scripted) OneShot() bool { return d.oneShot }

func oneNode() sched.Snapshot {
	return sched.Snapshot{Pools: []sched.Pool{{Name: "p", Policy: sched.PolicyFIFO}},
		Nodes: []sched.Node{{Name: "n", Slots: 1}}}
}

// TestSettleLoop: the passes Settle runs, and those it carries
// reservations on, by the driver's answers and its carry parameter.
func TestSettleLoop(t *testing.T) {
	tests := []struct {
		name    string
		d       scripted
		carry   bool
		max     int
		passes  int
		carried []int
		err     string
	}{
		{name: "a pass that changes nothing settles", carry: true, passes: 1, carried: []int{1}},
		{name: "an idle tick carries from its second pass on", d: scripted{applied: [][2]int{{1, 1}}},
			passes: 2, carried: []int{2}},
		{name: "an event carries on every pass", d: scripted{applied: [][2]int{{1, 1}}}, carry: true,
			passes: 2, carried: []int{1, 2}},
		{name: "one shot settles on starts without changes", d: scripted{applied: [][2]int{{3, 0}}, oneShot: true},
			carry: true, passes: 1, carried: []int{1}},
		{name: "starts are confirmed unless one shot", d: scripted{applied: [][2]int{{3, 0}}},
			carry: true, passes: 2, carried: []int{1, 2}},
		{name: "an idle driver runs no pass", d: scripted{idle: []bool{true}}, carry: true, passes: 0},
		{name: "idle after a pass stops there", d: scripted{idle: []bool{false, true}, applied: [][2]int{{1, 1}}},
			carry: true, passes: 1, carried: []int{1}},
		{name: "again runs another pass though settled", d: scripted{again: []bool{true}}, carry: true,
			passes: 2, carried: []int{1, 2}},
		{name: "a pass past the limit fails", d: scripted{applied: [][2]int{{0, 1}, {0, 1}, {0, 1}}}, max: 3,
			carry: true, passes: 3, carried: []int{1, 2, 3}, err: "did not settle after 3 passes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.d
			d.snap = oneNode()
			var sc sched.Scheduler
			s := Settler{MaxPasses: tt.max}
			passes, err := s.Settle(&d, &sc, tt.carry)
			if (err != nil) != (tt.err != "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err %v, want %q", err, tt.err)
			}
			if passes != tt.passes || len(d.built) != tt.passes {
				t.Fatalf("%d passes, %d built, want %d", passes, len(d.built), tt.passes)
			}
			if !slices.Equal(d.carried, tt.carried) {
				t.Fatalf("carried on passes %v, want %v", d.carried, tt.carried)
			}
		})
	}
}

// TestSettleSkips: the effects Settle hands the driver leave out a
// preemption, move or resize of a task being re-placed and a preemption
// of a task on a drained node, and keep Decide's order.
func TestSettleSkips(t *testing.T) {
	plan := &sched.Plan{
		Preemptions: []sched.Preemption{{Alloc: 0, For: 5}, {Alloc: 1, For: 5}, {Alloc: 2, For: 6}},
		Moves:       []sched.Move{{Alloc: 3, For: 7}, {Alloc: 4, For: 7}},
		Resizes:     []sched.Resize{{Alloc: 5, For: -1}, {Alloc: 6, For: -1}},
		Starts:      []sched.Start{{Job: 1}},
	}
	tests := []struct {
		name               string
		replacing, drained []int32
		want               string
	}{
		{"nothing skipped", nil, nil, "preempt 0 for 5, preempt 1 for 5, preempt 2 for 6, move 3 for 7, move 4 for 7, resize 5 for -1, resize 6 for -1, start -1 for -1"},
		{"re-placed tasks", []int32{1, 3, 6}, nil, "preempt 0 for 5, preempt 2 for 6, move 4 for 7, resize 5 for -1, start -1 for -1"},
		{"drained nodes skip preemptions only", nil, []int32{0, 2, 4, 5}, "preempt 1 for 5, move 3 for 7, move 4 for 7, resize 5 for -1, resize 6 for -1, start -1 for -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &scripted{replacing: map[int32]bool{}, drained: map[int32]bool{}}
			for _, ti := range tt.replacing {
				d.replacing[ti] = true
			}
			for _, ti := range tt.drained {
				d.drained[ti] = true
			}
			var got []string
			for _, e := range applicable(d, Decide(nil, plan, nil)) {
				got = append(got, e.Op.String()+" "+strconv.Itoa(int(e.Task))+" for "+strconv.Itoa(e.For))
			}
			if s := strings.Join(got, ", "); s != tt.want {
				t.Fatalf("applied %s\nwant    %s", s, tt.want)
			}
		})
	}
}
