package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/sim"
)

// TestEventsForJobsNeverSubmitted: a scripted event naming a job the
// workload never submits (a trace's names are known only as it is read)
// fails the run with the event's place, rather than being dropped; one
// naming a job submitted later than the event applies, and a run stopped
// by --until before the workload ends says nothing.
func TestEventsForJobsNeverSubmitted(t *testing.T) {
	pool := engPool(0, sched.PolicyFIFO, 1, 4, 0, nil)
	jobs := []sim.JobSpec{engSpec("a", 0, 1, 100), engSpec("late", 500, 1, 100)}
	tests := []struct {
		name   string
		events []sim.Event
		until  int64
		err    string
	}{
		{"unknown job", []sim.Event{{At: 10, Kind: sim.EventKill, Job: "zzz", Where: "s.yaml:12"}}, -1,
			`s.yaml:12: names job "zzz", which the workload never submits`},
		{"two unknown, sorted by name", []sim.Event{
			{At: 10, Kind: sim.EventKill, Job: "zz", Where: "s.yaml:13"},
			{At: 10, Kind: sim.EventSetPriority, Job: "yy", Priority: 3, Where: "s.yaml:14"}}, -1,
			"s.yaml:14: names job \"yy\", which the workload never submits\ns.yaml:13: names job \"zz\""},
		{"a job submitted after the event", []sim.Event{{At: 10, Kind: sim.EventKill, Job: "late", Where: "s.yaml:12"}}, -1, ""},
		{"stopped before the workload ends", []sim.Event{{At: 10, Kind: sim.EventKill, Job: "zzz"}}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &sim.Input{Pools: []sim.Pool{pool}, Jobs: sim.NewSliceSource(jobs), Events: tt.events}
			_, err := sim.Run(in, sim.Options{Until: tt.until})
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Run: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("Run error %v, want one containing %q", err, tt.err)
			}
		})
	}
}
