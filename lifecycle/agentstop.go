package lifecycle

// AgentPreempted ends running task ti at now as its agent's preemption
// ends it when the agent shuts down (EventAgentPreempted): its progress
// is saved as a checkpoint request saves it (Tasks.Preempt), and the
// checkpoint has landed, so the task lets go of its slots and waits
// again by its job's exit actions, or fails (Checkpointed), whatever its
// preemptibility, as the live master requeues an attempt its agent
// reports preempted. No pass decided it: it counts against no
// preemption budget and not in the job's Preempts. It returns the slots
// freed.
func (c *Cluster) AgentPreempted(now int64, ti int32) int {
	t := c.Tasks.At(ti)
	j := &c.Jobs[t.Job]
	slots := 0
	if t.Replacing && t.Drain >= 0 {
		slots = c.drained(t.Drain, TaskKilled) // as Exit
	}
	c.Tasks.Preempt(ti, now, j.Shape)
	return slots + c.Checkpointed(ti)
}
