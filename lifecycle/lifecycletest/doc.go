// Package lifecycletest plays one sequence of events — work starting and
// ending on fair-share leaves, preemptions, looks at the state — through
// a driver, and computes what every look must see straight from the
// definitions (seed 003's per-period sum, a window count), without the
// lifecycle package. The master's and the simulator's tests each play the
// same Script through their own use of lifecycle and compare with Want,
// which shows that the two give equal results for equal events.
//
// Like lifecycle it is pure and deterministic; it imports no test package
// so that both drivers' tests can use it.
package lifecycletest
