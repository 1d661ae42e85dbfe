package store

// Cause says, in a word a program reads, why a task's transition was
// made, where a program needs to tell it apart from others between the
// same states; the reason beside it says so to users, in words that may
// change. "" is any other transition.
type Cause string

const (
	// CauseNotRun ends an attempt whose agent does not run it (it
	// registered again without it, or never answered its start).
	CauseNotRun Cause = "not_run"
	// CauseStartFailed ends a task whose start failed (its agent could
	// not start a part): its transition to failed, and for a gang its
	// transition to killing the other parts and that kill's end.
	CauseStartFailed Cause = "start_failed"
	// CauseMoved and CauseResized ask a task to checkpoint (its
	// transition to preempting) for a move to make room, or a resize, to
	// restart on its reservation; any other transition to preempting is
	// a preemption.
	CauseMoved   Cause = "moved"
	CauseResized Cause = "resized"
	// A preemption's transition to preempting keeps the rule of its
	// pool's policy that let the job it makes room for (ForJob) take
	// the task's slots: a higher priority, a project reclaiming GPUs
	// within its quota from one over it, a job of the same project ranked
	// first, fair share, multifactor priority, a QOS that may preempt
	// the task's, or a backfilled task yielding to the job it was
	// backfilled before. "" for one recorded before the store kept it
	// (migration 0019) or under no rule the master names.
	CausePriority     Cause = "priority"
	CauseQuotaReclaim Cause = "quota_reclaim"
	CauseSameProject  Cause = "same_project"
	CauseFairShare    Cause = "fair_share"
	CauseMultifactor  Cause = "multifactor"
	CauseQOS          Cause = "qos"
	CauseBackfilled   Cause = "backfilled"
	// CauseTimeLimit kills a task past its job's time limit: its
	// transition to killing, and that kill's end.
	CauseTimeLimit Cause = "time_limit"
	// CauseUnplaced requeues (or, by its exit actions, fails) a task
	// whose move's or resize's checkpoint landed with a node of its new
	// placement down: the move or resize became a preemption.
	CauseUnplaced Cause = "unplaced"
	// CauseAgentStopped asks a gang's task to checkpoint (its transition
	// to preempting) because the agent of one of its nodes stopped its
	// part there and reported it preempted (allot agent --on-exit kill,
	// or its fence): no pass asked it. It is also the cause of the end
	// (running → preempted) of a one-node attempt that a leaving agent
	// (its node shutting down: allot agent, allot dev) reported
	// preempted, no pass having asked it.
	CauseAgentStopped Cause = "agent_stopped"
	// CauseRequeued asks a task to checkpoint (its transition to
	// preempting) because a user requeued its job (allot job requeue):
	// no pass asked it, and it counts against no preemption budget.
	CauseRequeued Cause = "requeued"
	// CauseLeftEnded marks the event (lost → lost) that the parts of a
	// lost gang's attempt on nodes still up, asked to checkpoint, have
	// all ended (NoteLeftEnded).
	CauseLeftEnded Cause = "left_ended"
	// CauseNodeLost and CauseNodeBack mark notes, not moves (Cause.Note):
	// events of a task's open attempt, From and To its state, that its
	// node was lost (or left) and the attempt is held through
	// lost_node_grace, or that the node came back and its agent still
	// runs the attempt, which goes on (trial 29e E4: the job's log said
	// nothing of either). TransitionTask records them and changes
	// nothing else; the what-if export, the decision log and the
	// restores take no move from them.
	CauseNodeLost Cause = "node_lost"
	CauseNodeBack Cause = "node_back"
)

// Note says whether an event of cause c is a note of a task's attempt
// (CauseNodeLost, CauseNodeBack) rather than a transition.
// Events leaves them out unless asked (EventFilter.Notes), by these two
// causes: a new note's cause goes there too.
func (c Cause) Note() bool { return c == CauseNodeLost || c == CauseNodeBack }
