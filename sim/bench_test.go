package sim_test

import (
	"path/filepath"
	"testing"

	"github.com/allot-sched/allot/sim"
)

// BenchmarkReplaySWF replays the whole SDSC-SP2 trace (59,715 records,
// 54,034 runnable jobs, 128 processors) from its gzipped file under each
// policy, as `allot sim` does without per-job output: one op is one full
// replay, trace reading and metrics included.
func BenchmarkReplaySWF(b *testing.B) {
	path := filepath.Join(sharedTraces, "SDSC-SP2-1998-4.2-cln.swf.gz")
	w, err := sim.LoadWorkload(path, sim.WorkloadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, policy := range []string{"fcfs", "easy", "conservative"} {
		b.Run("policy="+policy, func(b *testing.B) {
			set, err := sim.Preset(policy)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				rp, err := w.Open(set)
				if err != nil {
					b.Fatal(err)
				}
				res, err := sim.Run(rp.Input, sim.Options{Until: -1, OmitJobs: true, Series: true})
				rp.Close()
				if err != nil {
					b.Fatal(err)
				}
				if res.Metrics.Jobs != 54034 {
					b.Fatalf("%d jobs replayed, want 54034", res.Metrics.Jobs)
				}
			}
		})
	}
}
