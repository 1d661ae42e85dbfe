package master

import "testing"

// BenchmarkBuildJobs times a pass's build (buildSnapshot) over a mirror of
// 10,000 live jobs of one task each on 20 nodes of 8 GPUs, all busy:
// idle, with nothing changed since the last build, where the snapshot's
// jobs are the roster's entries kept from pass to pass (roster.go), and
// after a reload, when every entry is made again. The core does not run.
func BenchmarkBuildJobs(b *testing.B) {
	h := busyMirror(b)
	for _, reload := range []bool{false, true} {
		b.Run(map[bool]string{false: "idle", true: "reload"}[reload], func(b *testing.B) {
			h.m.lock()
			defer h.m.unlock()
			b.ReportAllocs()
			for b.Loop() {
				if reload {
					h.m.cfgGen++
				}
				h.m.planner.buildSnapshot(h.m.now())
			}
		})
	}
}
