package sched

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// InfeasibleError says why a job can never run in its pool, even on an
// empty cluster: which field of the job asks for too much, and the most
// that could fit.
type InfeasibleError struct {
	// Job is the job's ID in the snapshot.
	Job string
	// Name is how the message names the job, set by a caller whose
	// snapshot IDs are not what its users call a job (the master's are
	// its numbers, and it sets "10 (big)", as its CLI names jobs); ""
	// names it by Job, quoted, as a scenario's messages name its jobs.
	Name string
	// Field is the job field at fault: "pool", "gpu", "slots" (one task is
	// larger than the pool's matching nodes hold together, or under one
	// switch for topology: required), or "licenses".
	Field string
	// Need is what the job asks for (the smallest task of an elastic
	// job); Max is the largest value of Field that could fit: slots of the
	// matching nodes, or a license's total. For "pool" and "gpu" it is 0.
	Need, Max int
	// Reason is the pending reason the core gives such a job.
	Reason Reason
	detail string
}

func (e *InfeasibleError) Error() string {
	name := e.Name
	if name == "" {
		name = strconv.Quote(e.Job)
	}
	return fmt.Sprintf("job %s can never run: %s", name, e.detail)
}

// Feasible reports whether one task of job could ever be placed: it
// returns nil when the job's pool, with every node empty, can hold one
// task (the smallest, for an elastic job), and otherwise an
// *InfeasibleError naming the field and the largest value that would fit.
// It reads only s.Pools, s.Nodes and s.Licenses, so callers (the master
// and the simulator, at submit) may pass a snapshot without the job. It
// agrees with the core: a job it rejects is exactly one a pass reports as
// no_nodes, gpu_type or license-short for good.
func Feasible(s *Snapshot, job *Job) error {
	fail := func(field string, need, most int, r Reason, format string, args ...any) error {
		return &InfeasibleError{Job: job.ID, Field: field, Need: need, Max: most, Reason: r,
			detail: fmt.Sprintf(format, args...)}
	}
	// Checked in the core's order, so that both name the same problem.
	if job.Pool < 0 || job.Pool >= len(s.Pools) {
		return fail("pool", 0, 0, ReasonNoNodes, "pool index %d out of range", job.Pool)
	}
	pool := s.Pools[job.Pool].Name
	need := job.SmallestTask()
	total, largestNode, typed := 0, 0, false
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Pool == job.Pool && (job.GPU == "" || n.GPU == job.GPU) {
			total += n.Slots
			largestNode = max(largestNode, n.Slots)
			typed = true
		}
	}
	if job.GPU != "" && !typed {
		var types []string
		for i := range s.Nodes {
			if n := &s.Nodes[i]; n.Pool == job.Pool && n.GPU != "" && !slices.Contains(types, n.GPU) {
				types = append(types, n.GPU)
			}
		}
		slices.Sort(types)
		return fail("gpu", 0, 0, ReasonGPUType, "no node of type %s in pool %s (types there: %s)",
			job.GPU, pool, or(strings.Join(types, ", "), "none"))
	}
	what := "slots"
	if job.GPU != "" {
		what = job.GPU + " slots"
	}
	if need > total {
		return fail("slots", need, total, ReasonNoNodes,
			"a task needs %s, but the %s of pool %s add up to %d", slotCount(need), what, pool, total)
	}
	if need > largestNode && job.Topology == TopologyRequired {
		if most := oneSwitchMost(s, job); need > most {
			return fail("slots", need, most, ReasonNoNodes,
				"a task needs %s under one switch (topology: required), but one switch of pool %s holds at most %d %s",
				slotCount(need), pool, most, what)
		}
	}
	for _, lu := range job.Licenses {
		if lu.License < 0 || lu.License >= len(s.Licenses) {
			return fail("licenses", lu.Count, 0, ReasonLicense, "license index %d out of range", lu.License)
		}
		if l := &s.Licenses[lu.License]; lu.Count > l.Total {
			return fail("licenses", lu.Count, l.Total, ReasonLicense,
				"each task needs %d of license %s, but only %d exist", lu.Count, l.Name, l.Total)
		}
	}
	return nil
}

// oneSwitchMost is the largest gang one switch can hold for the job: like
// placement, it counts the alike nodes (same GPU type and size) under one
// switch, or of a group without switches.
func oneSwitchMost(s *Snapshot, job *Job) int {
	type key struct {
		gpu    string
		size   int
		domain string
	}
	labelled := map[key]bool{}
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Pool == job.Pool && n.Switch != "" {
			labelled[key{n.GPU, n.Slots, ""}] = true
		}
	}
	sum := map[key]int{}
	most := 0
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.Pool != job.Pool || (job.GPU != "" && n.GPU != job.GPU) {
			continue
		}
		k := key{n.GPU, n.Slots, ""}
		if labelled[k] {
			k.domain = "switch " + n.Switch
		}
		sum[k] += n.Slots
		most = max(most, sum[k])
	}
	return most
}
