package sched

// A pass is split into parts, each a struct that owns the scratch memory
// of one stage and holds the methods that use it (see doc.go). The
// Scheduler keeps every part between passes, so their slices are reused,
// and begin links them to the pass: a part reads the snapshot and the
// planning state through its back pointer, and calls the other parts,
// and placement, through the pass.

// begin readies the Scheduler's pass over s and links its parts to it.
// The pass lives in the Scheduler, so that the parts' pointers to it do
// not move it to the heap on every pass.
func (sc *Scheduler) begin(s *Snapshot) *pass {
	sc.pass = pass{sc: sc, s: s, st: &sc.st, plan: &sc.plan,
		vic: &sc.vic, pre: &sc.pre, cons: &sc.cons, lic: &sc.lic,
		nprof: &sc.nprof, elastic: &sc.elastic, finds: &sc.finds}
	p := &sc.pass
	sc.vic.p, sc.pre.p, sc.cons.p, sc.lic.p, sc.nprof.p, sc.elastic.p = p, p, p, p, p, p
	return p
}
