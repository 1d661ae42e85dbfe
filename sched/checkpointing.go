package sched

import (
	"fmt"
	"slices"
	"strings"
)

// CheckpointingMessage is the checkpointing reason's message for job ji,
// whose task of need slots is held on slots still draining, in s after
// plan (made from s; nil for none). The slots drain either because their
// tasks were preempted or because the core moved or resized them (a
// fair-share shrink, a consolidation): both checkpoint first, but a
// resized or moved task runs on, and calling it preempted misleads its
// owner. So the message names the resized or moved jobs when the plan
// re-placed tasks for ji and preempted none, or, in a later pass, when
// every draining task of the pool is a re-placed one. resized, when not
// nil, tells which of s's re-placed allocations are resizes, which s
// alone does not (Alloc.Moving marks both); without it a later pass says
// "moving or resizing".
func CheckpointingMessage(s *Snapshot, plan *Plan, ji, need int, resized func(alloc int) bool) string {
	if verb, ids := s.replacedFor(plan, ji, resized); len(ids) > 0 {
		whose := "its checkpoint"
		if len(ids) > 1 {
			whose = "their checkpoints"
		}
		return fmt.Sprintf("slots are being freed by %s %s; waiting for %s (needs %s)",
			verb, jobsPhrase(ids), whose, slotCount(need))
	}
	return fmt.Sprintf("slots were freed by preemption; waiting for the preempted tasks to checkpoint (needs %s)", slotCount(need))
}

// replacedFor is how the slots job ji waits for are being freed, when
// it is by re-placing running tasks and not by preempting any: the verb
// ("resizing", "moving", or "moving or resizing" where both are, or
// where a later pass's snapshot does not tell them apart) and the
// re-placed tasks' jobs, by ID, each once; no IDs otherwise.
func (s *Snapshot) replacedFor(plan *Plan, ji int, isResize func(alloc int) bool) (string, []string) {
	if ji < 0 || ji >= len(s.Jobs) {
		return "", nil
	}
	var ids []string
	add := func(a int) {
		if a >= 0 && a < len(s.Allocs) {
			if id := s.Jobs[s.Allocs[a].Job].ID; !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if plan != nil {
		for _, pr := range plan.Preemptions {
			if pr.For == ji {
				return "", nil
			}
		}
		var resized, moved bool
		for _, r := range plan.Resizes {
			if r.For == ji {
				add(r.Alloc)
				resized = true
			}
		}
		for _, m := range plan.Moves {
			if m.For == ji {
				add(m.Alloc)
				moved = true
			}
		}
		if resized || moved {
			return replacedVerb(resized, moved), ids
		}
	}
	pool := s.Jobs[ji].Pool
	resized, moved := false, false
	for a := range s.Allocs {
		al := &s.Allocs[a]
		if !al.Preempting || s.Jobs[al.Job].Pool != pool {
			continue
		}
		if !al.Moving {
			return "", nil // a preempted task drains there too
		}
		add(a)
		if isResize == nil {
			resized, moved = true, true
		} else if isResize(a) {
			resized = true
		} else {
			moved = true
		}
	}
	return replacedVerb(resized, moved), ids
}

func replacedVerb(resized, moved bool) string {
	switch {
	case resized && moved:
		return "moving or resizing"
	case resized:
		return "resizing"
	}
	return "moving"
}

// jobsPhrase names jobs by ID: "job 9", "jobs 9 and 12", "jobs 9, 12
// and 15", "jobs 9, 12, 15 and 2 more".
func jobsPhrase(ids []string) string {
	switch n := len(ids); {
	case n == 1:
		return "job " + ids[0]
	case n <= maxHolders:
		return "jobs " + strings.Join(ids[:n-1], ", ") + " and " + ids[n-1]
	default:
		return fmt.Sprintf("jobs %s and %d more", strings.Join(ids[:maxHolders], ", "), n-maxHolders)
	}
}
