// Package gpumodel names GPU types from GPU model names. It is a leaf, so
// that packages which only parse (jobfile) can map a Kubernetes node
// label's model name to the type a job asks for, without importing the
// process-running agent.
package gpumodel
