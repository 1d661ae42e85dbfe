package sim

import "github.com/allot-sched/allot/lifecycle"

// Attempts their agent preempted (JobSpec.AgentPreempted,
// scenario.Job.AgentPreempted): an agent under allot agent --on-exit
// kill stops its tasks and reports them preempted, as does one whose
// fence stops them in a master outage, and the master requeues them by
// their exit actions, though no pass asked.

// agentPreempts pushes the agent's preemption of task ti's attempt, just
// started or restarted on a move's or resize's placement (relanded), if
// its job scripts one: After seconds after the attempt's start, for the
// task's version now, so that a preemption, move, resize or end before
// then makes it stale. A re-placement continues the attempt, so its
// landing pushes the preemption again for the new version: live, an
// agent (its fence, in a master outage) stops a resized task as any
// other.
func (s *world) agentPreempts(ti int32) {
	t := s.c.Tasks.At(ti)
	after, ok := s.jobs[t.Job].spec.AgentPreempted[[2]int{int(t.ID), int(t.Retries) + 1}]
	if ok && t.Start+after >= s.now {
		s.q.push(event{at: t.Start + after, kind: evAgentPreempted, ref: ti, ver: t.Ver})
	}
}

// agentPreempted applies an agent's preemption that still applies: the
// attempt ends preempted (lifecycle.EventAgentPreempted), with no
// request for Decisions to log.
func (x scriptedEnds) agentPreempted(e event) {
	s := x.s
	o := s.c.Observe(s.now, lifecycle.Event{Kind: lifecycle.EventAgentPreempted, Task: e.ref, Ver: e.ver})
	if !o.Applied {
		return
	}
	t := s.c.Tasks.At(e.ref)
	if t.Record >= 0 {
		s.jobs[t.Job].attempts[t.Record].byAgent = true
	}
	s.rec.endAttempt(t, lifecycle.AttemptPreempted, false)
	s.outcome(e.ref, &o, lifecycle.TaskRunning)
}
