// Package mastertest holds test helpers for the master: a fake agent that
// speaks the real agent protocol over HTTP, so that tests and benchmarks of
// the master (and end-to-end tests of other packages) can run a cluster
// without processes or GPUs.
package mastertest
