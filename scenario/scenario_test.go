package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/allot-sched/allot/spec"
)

func mustParse(t *testing.T, src string) *Scenario {
	t.Helper()
	s, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func TestLoadExample(t *testing.T) {
	s, err := Load("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Scenario{
		Name: "testdata/example.yaml",
		Cluster: spec.Cluster[Pool]{Pools: []Pool{
			{
				Pool: spec.Pool{Name: "gpu", Policy: PolicyPriority, Preemption: true, Backfill: true,
					Placement: PlacementSpread, ZeroSlotLimit: 100, KillGrace: spec.DefaultKillGrace, Line: 4},
				CheckpointCost: 30,
				Quota:          -1, OnPreempt: OnPreemptReschedule, MaxRetries: -1,
				Nodes: []Node{
					{Node: spec.Node{Name: "node-1", Labels: map[string]string{"switch": "s1"}}, Slots: 8, GPU: "h100", Line: 11},
					{Node: spec.Node{Name: "node-2", Labels: map[string]string{"switch": "s1"}}, Slots: 8, GPU: "h100", Line: 11},
					{Node: spec.Node{Name: "big"}, Slots: 16, Line: 12},
				},
			},
			{
				Pool: spec.Pool{Name: "batch", Policy: PolicyBackfill, Reservations: ReservationsEasy,
					Placement: PlacementBinpack, ZeroSlotLimit: 100, KillGrace: spec.DefaultKillGrace, Line: 13},
				Quota: -1, OnPreempt: OnPreemptReschedule, MaxRetries: -1,
				Nodes: []Node{
					{Node: spec.Node{Name: "cpu-1"}, Slots: 4, Line: 16},
					{Node: spec.Node{Name: "cpu-2"}, Slots: 4, Line: 16},
					{Node: spec.Node{Name: "cpu-3"}, Slots: 4, Line: 16},
				},
			},
		}},
		Jobs: []Job{
			{Name: "asha", Kind: KindExperiment, Pool: "gpu", Tasks: 20, MaxConcurrent: 4, Slots: 1,
				Duration: 7200, TimeLimit: 10800, Priority: 42, PriorityClass: ClassNormal, Weight: 1, Preemptible: true,
				OnPreempt: OnPreemptReschedule, MaxRetries: -1, Line: 18},
			{Name: "notebook", Kind: KindNotebook, Submit: 90, Pool: "gpu", Tasks: 1, MaxConcurrent: 1,
				Slots: 0, Duration: -1, Priority: 42, PriorityClass: ClassNormal, Weight: 1, Interactive: true,
				OnPreempt: OnPreemptReschedule, MaxRetries: -1, Line: 30},
			{Name: "sweep", Kind: KindCommand, Pool: "batch", Tasks: 3, MaxConcurrent: 3, Slots: 4,
				Duration: 90, Priority: 7, PriorityClass: ClassHigh, Weight: 2.5,
				OnPreempt: OnPreemptReschedule, MaxRetries: -1, Line: 34},
		},
		Events: []Event{
			{At: 4 * 3600, Kind: EventKill, Job: "notebook", Line: 42},
			{At: 3600, Kind: EventSetPriority, Job: "asha", Priority: 1, Line: 43},
			{At: 3600, Kind: EventSetWeight, Job: "asha", Weight: 3, Line: 44},
		},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Load mismatch\n got: %+v\nwant: %+v", s, want)
	}
	// Expanded nodes must not share one labels map.
	s.Pools[0].Nodes[0].Labels["switch"] = "changed"
	if s.Pools[0].Nodes[1].Labels["switch"] != "s1" {
		t.Error("expanded nodes share their labels map")
	}
}

func TestLoadTrace(t *testing.T) {
	s, err := Load("testdata/traced/scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := &TraceRef{Path: filepath.Join("testdata", "traced", "jobs.swf"), Format: TraceSWF, Line: 4}
	if !reflect.DeepEqual(s.Trace, want) {
		t.Errorf("Trace = %+v, want %+v", s.Trace, want)
	}
	if len(s.Jobs) != 0 {
		t.Errorf("Jobs = %v, want none", s.Jobs)
	}
	if len(s.Events) != 1 || s.Events[0].Job != "17" {
		t.Errorf("Events = %+v, want one kill of job 17", s.Events)
	}
	if !s.Pools[0].Serial {
		t.Error("Serial = false, want true")
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("testdata/no-such-file.yaml")
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "no-such-file.yaml") {
		t.Errorf("Load = %v, want a not-exist error naming the file", err)
	}
}

const onePool = "pools: [{name: p, policy: fifo, nodes: [{name: n, slots: 8}]}]\n"

// goodCase is a valid input and an optional check of the result.
type goodCase struct {
	name  string
	src   string
	check func(t *testing.T, s *Scenario)
}

func runGoodCases(t *testing.T, tests []goodCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.src)
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func TestParsePools(t *testing.T) {
	runGoodCases(t, []goodCase{
		{"pool defaults", onePool, func(t *testing.T, s *Scenario) {
			p := s.Pools[0]
			if p.Placement != PlacementBinpack || p.Reservations != "" || p.Preemption || p.CheckpointCost != 0 {
				t.Errorf("pool = %+v", p)
			}
			if len(p.Nodes) != 1 || p.Nodes[0].Name != "n" || p.Nodes[0].Labels != nil {
				t.Errorf("nodes = %+v, want one node named n", p.Nodes)
			}
		}},
		{"count expansion across pools", `pools:
  - name: a
    policy: fair_share
    preemption: true
    nodes: [{name: x, count: 3, slots: 2}, {name: x-4, slots: 1}]
  - name: b
    policy: backfill
    reservations: conservative
    nodes: [{name: y, count: 1, slots: 1}]
`, func(t *testing.T, s *Scenario) {
			var names []string
			for _, p := range s.Pools {
				for _, n := range p.Nodes {
					names = append(names, n.Name)
				}
			}
			if want := []string{"x-1", "x-2", "x-3", "x-4", "y"}; !reflect.DeepEqual(names, want) {
				t.Errorf("node names = %v, want %v", names, want)
			}
			if s.Pools[1].Reservations != ReservationsConservative {
				t.Errorf("Reservations = %q", s.Pools[1].Reservations)
			}
		}},
		{"labels keep numbers as written", `pools: [{name: p, policy: fifo, nodes: [{name: n, slots: 1, labels: {rack: 012, zone: 1.50}}]}]`,
			func(t *testing.T, s *Scenario) {
				want := map[string]string{"rack": "012", "zone": "1.50"}
				if got := s.Pools[0].Nodes[0].Labels; !reflect.DeepEqual(got, want) {
					t.Errorf("Labels = %v, want %v", got, want)
				}
			}},
		{"task exactly as large as its pool", "pools: [{name: p, policy: fifo, nodes: [{name: n, count: 2, slots: 8}]}]\njobs: [{name: j, slots: 16}]", nil},
	})
}

func TestParseJobsAndEvents(t *testing.T) {
	runGoodCases(t, []goodCase{
		{"job defaults", onePool + "jobs: [{name: j}]", func(t *testing.T, s *Scenario) {
			want := Job{Name: "j", Kind: KindCommand, Pool: "p", Tasks: 1, MaxConcurrent: 1, Slots: 1,
				Duration: -1, Priority: DefaultPriority, PriorityClass: ClassNormal, Weight: DefaultWeight,
				OnPreempt: OnPreemptReschedule, MaxRetries: -1, Line: 2}
			if !reflect.DeepEqual(s.Jobs, []Job{want}) {
				t.Errorf("Jobs = %+v, want %+v", s.Jobs, want)
			}
		}},
		{"max_concurrent defaults to tasks", onePool + "jobs: [{name: j, tasks: 7}]", func(t *testing.T, s *Scenario) {
			if s.Jobs[0].MaxConcurrent != 7 {
				t.Errorf("MaxConcurrent = %d, want 7", s.Jobs[0].MaxConcurrent)
			}
		}},
		{"preemptible by kind", onePool + `jobs:
  - {name: e, kind: experiment}
  - {name: c, kind: command}
  - {name: n, kind: notebook}
  - {name: s, kind: shell}
  - {name: t, kind: tensorboard}
  - {name: e2, kind: experiment, preemptible: false}
  - {name: c2, preemptible: true}
`, func(t *testing.T, s *Scenario) {
			want := []bool{true, false, false, false, false, false, true}
			for i, j := range s.Jobs {
				if j.Preemptible != want[i] {
					t.Errorf("%s: Preemptible = %v, want %v", j.Name, j.Preemptible, want[i])
				}
			}
		}},
		{"merge keys", onePool + `jobs:
  - &d {name: a, tasks: 4, slots: 2}
  - {<<: *d, name: b, slots: 3}
  - {<<: [{priority: 5}, *d], name: c, priority: 6, weight: 2}
`, func(t *testing.T, s *Scenario) {
			if j := s.Jobs[1]; j.Name != "b" || j.Tasks != 4 || j.Slots != 3 {
				t.Errorf("b = %+v, want tasks 4 from the anchor and its own slots 3", j)
			}
			if j := s.Jobs[2]; j.Name != "c" || j.Tasks != 4 || j.Slots != 2 || j.Priority != 6 || j.Weight != 2 {
				t.Errorf("c = %+v", j)
			}
		}},
		{"self-referencing merge terminates", onePool + "jobs: [&a {<<: [*a, *a], name: x, tasks: 2}, {<<: *a, name: y}]",
			func(t *testing.T, s *Scenario) {
				if len(s.Jobs) != 2 || s.Jobs[1].Tasks != 2 {
					t.Errorf("Jobs = %+v", s.Jobs)
				}
			}},
		{"null sections", onePool + "jobs:\nevents:\n", func(t *testing.T, s *Scenario) {
			if len(s.Jobs) != 0 || len(s.Events) != 0 {
				t.Errorf("got jobs %v events %v, want none", s.Jobs, s.Events)
			}
		}},
		{"events keep file order", onePool + `jobs: [{name: j}]
events:
  - {at: 2h, kill: j}
  - {at: 1h, set_weight: {job: j, weight: 0.5}}
`, func(t *testing.T, s *Scenario) {
			if s.Events[0].At != 7200 || s.Events[1].Weight != 0.5 {
				t.Errorf("Events = %+v", s.Events)
			}
		}},
		{"trace path kept as written by Parse", onePool + "jobs: {trace: ../t.csv}\n", func(t *testing.T, s *Scenario) {
			if s.Trace == nil || s.Trace.Path != "../t.csv" || s.Trace.Format != "" {
				t.Errorf("Trace = %+v", s.Trace)
			}
		}},
		{"zero-slot task fits anywhere", onePool + "jobs: [{name: j, slots: 0}]", nil},
	})
}

func TestParseDurations(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"90", 90}, {"90.0", 90}, {"90m", 5400}, {"1h30m", 5400}, {"45s", 45},
		{"0", 0}, {`"0"`, 0}, {"1e3", 1000}, {"2000ms", 2}, {"0x10", 16},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s := mustParse(t, onePool+"jobs: [{name: j, duration: "+tt.in+"}]")
			if got := s.Jobs[0].Duration; got != tt.want {
				t.Errorf("Duration = %d, want %d", got, tt.want)
			}
		})
	}
}
