package sim

import "github.com/allot-sched/allot/lifecycle"

// Attempts their agent preempted as it shut down (JobSpec.AgentPreempted,
// scenario.Job.AgentPreempted): an agent under allot agent --on-exit
// kill stops its tasks and reports them preempted, and the master
// requeues them by their exit actions, though no pass asked.

// agentPreempts pushes the agent's preemption of task ti's attempt, just
// started, if its job scripts one: After seconds later, for the task's
// version now, so that a preemption, move, resize or end before then
// makes it stale.
func (s *world) agentPreempts(ti int32) {
	t := s.c.Tasks.At(ti)
	if after, ok := s.jobs[t.Job].spec.AgentPreempted[[2]int{int(t.ID), int(t.Retries) + 1}]; ok {
		s.q.push(event{at: s.now + after, kind: evAgentPreempted, ref: ti, ver: t.Ver})
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
	if t.Attempt >= 0 {
		s.jobs[t.Job].attempts[t.Attempt].byAgent = true
	}
	s.rec.endAttempt(t, lifecycle.AttemptPreempted, false)
	s.outcome(e.ref, &o, lifecycle.TaskRunning)
}
