package sched

// A pass is split into parts, each a struct that owns the scratch memory
// of one stage and holds the methods that use it (see doc.go). The
// Scheduler keeps every part between passes, so their slices are reused,
// and begin links them to the pass. A part holds the snapshot and the
// planning state, and the victim lists where it asks them about every
// candidate, itself: its candidate loops read them on every step, and
// going through the pass for each cost a few percent of a pass. For
// anything else (the plan, the Scheduler's shared marks, commit, the
// other parts) it goes through its back pointer to the pass.

// begin readies the Scheduler's pass over s and links its parts to it.
// The pass lives in the Scheduler, so that the parts' pointers to it do
// not move it to the heap on every pass.
func (sc *Scheduler) begin(s *Snapshot) *pass {
	sc.pass = pass{sc: sc, s: s, st: &sc.st, plan: &sc.plan,
		vic: &sc.vic, pre: &sc.pre, cons: &sc.cons, lic: &sc.lic,
		nprof: &sc.nprof, elastic: &sc.elastic, finds: &sc.finds}
	p, st := &sc.pass, &sc.st
	sc.vic.p, sc.vic.s, sc.vic.st = p, s, st
	sc.pre.p, sc.pre.s, sc.pre.st, sc.pre.vic = p, s, st, &sc.vic
	sc.cons.p, sc.cons.s, sc.cons.st, sc.cons.vic = p, s, st, &sc.vic
	sc.lic.p, sc.lic.s, sc.lic.st = p, s, st
	sc.nprof.p, sc.nprof.s, sc.nprof.st = p, s, st
	sc.elastic.p, sc.elastic.s, sc.elastic.st = p, s, st
	return p
}

// end unlinks the pass and its parts from the snapshot, so that the
// Scheduler keeps no snapshot past the pass.
func (sc *Scheduler) end() {
	sc.pass = pass{}
	sc.vic.p, sc.vic.s, sc.vic.st = nil, nil, nil
	sc.pre.p, sc.pre.s, sc.pre.st, sc.pre.vic = nil, nil, nil, nil
	sc.cons.p, sc.cons.s, sc.cons.st, sc.cons.vic = nil, nil, nil, nil
	sc.lic.p, sc.lic.s, sc.lic.st = nil, nil, nil
	sc.nprof.p, sc.nprof.s, sc.nprof.st = nil, nil, nil
	sc.elastic.p, sc.elastic.s, sc.elastic.st = nil, nil, nil
}
