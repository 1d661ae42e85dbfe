package sim

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/allot-sched/allot/sched"
)

// synthetic is an endless source of jobs that allocates nothing: names
// come from a fixed table, sizes and run times from a linear congruential
// generator, arrivals every ten seconds on average, so that a 32-slot
// cluster is busy but keeps up (about 45% load, with queues).
type synthetic struct {
	names []string
	x     uint64
	now   int64
	n     int
}

func newSynthetic() *synthetic {
	s := &synthetic{x: 1}
	for i := range 256 {
		s.names = append(s.names, "job-"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	return s
}

func (s *synthetic) rand(n int) int {
	s.x = s.x*6364136223846793005 + 1442695040888963407
	return int((s.x >> 33) % uint64(n))
}

func (s *synthetic) Next() (JobSpec, error) {
	s.now += int64(1 + s.rand(20))
	s.n++
	run := int64(10 + s.rand(100))
	return JobSpec{
		Name: s.names[s.n%len(s.names)], Kind: sched.KindCommand, Submit: s.now,
		Tasks: 1, MaxConcurrent: 1, Slots: 1 + s.rand(4), Duration: run,
		TimeLimit: run + int64(s.rand(200)), Priority: 42, Weight: 1,
		Project: s.names[s.rand(8)],
	}, nil
}

// TestEventLoopAllocatesNothing runs the event loop on an endless
// synthetic trace and checks that, once warm, handling an instant (its
// events, submissions and scheduling passes, and the metrics) allocates
// nothing. The sample kept per finished job grows a slice, which
// allocates only when it doubles.
func TestEventLoopAllocatesNothing(t *testing.T) {
	for _, policy := range []string{"fcfs", "easy", "conservative"} {
		t.Run(policy, func(t *testing.T) {
			set, err := Preset(policy)
			if err != nil {
				t.Fatal(err)
			}
			pool := clusterPool(32, 1)
			if err := set.apply(&pool); err != nil {
				t.Fatal(err)
			}
			in := &Input{Pools: []Pool{pool}, Jobs: newSynthetic()}
			s, err := newSim(in, Options{Until: -1, OmitJobs: true, Series: true})
			if err != nil {
				t.Fatal(err)
			}
			tick := func() {
				if ok, err := s.tick(); !ok || err != nil {
					t.Fatalf("tick: %v, %v", ok, err)
				}
			}
			for range 20000 {
				tick()
			}
			if s.rec.submits < 5000 || s.rec.completed < 4000 {
				t.Fatalf("warm-up ran %d jobs, %d completed; want a busy cluster", s.rec.submits, s.rec.completed)
			}
			// Memory follows the live state: thousands of jobs have come and
			// gone, but the records are reused.
			if len(s.jobs) > 100 || s.c.Tasks.Len() > 100 {
				t.Errorf("%d job and %d task records after %d jobs; want them reused", len(s.jobs), s.c.Tasks.Len(), s.rec.submits)
			}
			if allocs := testing.AllocsPerRun(5000, tick); allocs != 0 {
				t.Errorf("%v allocations per instant, want 0", allocs)
			}
		})
	}
}

// TestConfirmingPassChangesNothing: for FIFO and backfill pools (EASY and
// conservative) the
// simulator skips the pass that would confirm a plan (see step). Forcing
// it back on must give byte-identical results.
func TestConfirmingPassChangesNothing(t *testing.T) {
	// Conservative backfilling is included: it compresses once per
	// event, as the textbook does, and a second compression at the same
	// instant starts nothing more on these traces (nor on SDSC-SP2,
	// checked by hand: it takes 14 s).
	for _, f := range replayTraces(t) {
		for _, policy := range []string{"fcfs", "easy", "conservative"} {
			t.Run(filepath.Base(f)+"/"+policy, func(t *testing.T) {
				passes := [2]int{}
				opts := func(i int) Options {
					return Options{Until: -1, Timeline: true, confirm: i == 1,
						Inspect: func(int64, *sched.Snapshot, *sched.Plan) { passes[i]++ }}
				}
				a, b := replayJSON(t, f, policy, opts(0)), replayJSON(t, f, policy, opts(1))
				if !bytes.Equal(a, b) {
					t.Errorf("results differ with the confirming pass:\n%s\n%s", a, b)
				}
				if passes[1] <= passes[0] {
					t.Errorf("%d passes with confirmation, %d without: the option did nothing", passes[1], passes[0])
				}
			})
		}
	}
}

// TestFIFOPrefixChangesNothing: under FCFS the simulator schedules a
// window of the queue, and under FCFS and EASY it skips passes on a full
// cluster (lifecycle/shortcuts.go); replaying with the whole queue on
// every pass must give byte-identical results.
func TestFIFOPrefixChangesNothing(t *testing.T) {
	for _, f := range replayTraces(t) {
		for _, policy := range []string{"fcfs", "easy"} {
			t.Run(filepath.Base(f)+"/"+policy, func(t *testing.T) {
				a := replayJSON(t, f, policy, Options{Until: -1, Timeline: true})
				b := replayJSON(t, f, policy, Options{Until: -1, Timeline: true, noPrefix: true})
				if !bytes.Equal(a, b) {
					t.Errorf("results differ with the whole queue:\n%s\n%s", a, b)
				}
			})
		}
	}
}

// replayTraces are the traces the option-comparing replays run: the
// repository's small ones and a real one from the shared data.
func replayTraces(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "traces", "*.swf"))
	if len(files) == 0 {
		t.Fatal("no traces in ../testdata/traces")
	}
	return append(files, filepath.Join("..", "..", "shared", "traces", "hpc2n-subset.swf.gz"))
}

// replayJSON replays trace f under the preset policy with opt and returns
// the result as JSON.
func replayJSON(t *testing.T, f, policy string, opt Options) []byte {
	t.Helper()
	w, err := LoadWorkload(f, WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set, _ := Preset(policy)
	rp, err := w.Open(set)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	res, err := Run(rp.Input, opt)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
