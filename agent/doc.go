// Package agent is the node side of Allot: it finds the node's GPUs and
// runs task attempts as process groups, streams their output, delivers
// preemption as a checkpoint request with a deadline, and reports how each
// attempt ended. It does not speak to the master; the agent's protocol
// layer drives a Runner and forwards what it reports. It runs on Linux
// (other Unix systems work with weaker guarantees, noted below).
//
// # GPUs
//
// Detect runs nvidia-smi --query-gpu=index,uuid,name,memory.total
// --format=csv,noheader and parses it with ParseNvidiaSMI. Without
// nvidia-smi it fails with ErrNoNvidiaSMI, and the caller may fall back to
// a declared inventory from Fake; any other failure means a driver problem
// on a machine that may well have GPUs, and should not fall back. GPUType
// derives the short type ("h100", "a100", "rtx4090") from the name.
//
// # The task environment
//
// A task runs as /bin/sh -c ENTRYPOINT in its working directory, as the
// leader of a new process group, with stdin from /dev/null. Its
// environment is, in increasing precedence: the Runner's BaseEnv (default:
// the agent's own environment) without ALLOT_*, CUDA_VISIBLE_DEVICES and
// CUDA_DEVICE_ORDER; the job's variables (which may not use those names);
// and these:
//
//	ALLOT_JOB_ID          the job's id
//	ALLOT_TASK_INDEX      the task's index in the job (the trial number), from 0
//	ALLOT_ATTEMPT         the master's attempt number for this run
//	ALLOT_RESTART_COUNT   how many attempts ran before this one
//	ALLOT_CHECKPOINT_DIR  the checkpoint directory, the same for every attempt
//	ALLOT_HPARAMS         the hyperparameters, a compact JSON object ({} if none)
//	ALLOT_HPARAMS_FILE    WORKDIR/.allot/hparams.json, the same JSON
//	ALLOT_PREEMPT_FILE    WORKDIR/.allot/preempt, which appears on a checkpoint request
//	ALLOT_METRICS_FILE    WORKDIR/.allot/metrics-ATTEMPT-RANK.jsonl, where a trial
//	                      appends {"step":N,"metrics":{"loss":0.3}} lines (agentd
//	                      forwards them to the master)
//	ALLOT_TRIAL_MAX_STEPS a trial's step budget, set by adaptive searchers only
//	ALLOT_NODE_RANK       this node's rank in a task spanning several nodes, from 0
//	ALLOT_NUM_NODES       how many nodes the task spans (1 for a single-node task)
//	CUDA_VISIBLE_DEVICES  the task's GPU indexes joined by commas; "" (set but
//	                      empty, so CUDA sees no device) for a zero-slot task
//	CUDA_DEVICE_ORDER     PCI_BUS_ID, so that CUDA numbers GPUs as nvidia-smi does
//
// Before the start, the working and checkpoint directories are created,
// the hyperparameters file is written, and a preempt file left by an
// earlier attempt in the same directory, and a metrics file and a shim's
// output file of the same attempt number, are removed.
//
// # Preemption protocol
//
// Task.Preempt(grace) asks for a checkpoint twice over: it creates
// ALLOT_PREEMPT_FILE holding the deadline (RFC 3339, UTC), then sends the
// Runner's PreemptSignal (SIGTERM by default) to the whole process group.
// A task should save its state to ALLOT_CHECKPOINT_DIR and exit, and on
// start resume from what it finds there (examples/train does both). At the
// deadline the agent SIGKILLs the whole group. Either way the attempt's
// outcome is OutcomePreempted; Result.KilledAtDeadline tells whether it
// had to be killed. Task.Kill(grace) ends the attempt as killed
// (OutcomeKilled): SIGTERM to the group, so that a task that traps it
// can save its state and exit, and SIGKILL of what is left of the group
// when the grace is over (at once for a grace of 0); a leader that exits
// first leaves the rest of its group until then, as in a preemption, and
// Result.KilledAtDeadline says whether the SIGKILL was needed. A kill
// during a preemption keeps the preemption's deadline if it is earlier.
// Otherwise an attempt is OutcomeCompleted (exit 0) or OutcomeFailed.
// Result.ExitedAt is the exit time the task's shim recorded in its exit
// file, within the attempt's start and when the agent saw the leader
// exit, which may be much later (the agent stopped or starved); without
// a record (no shim, or one killed with the task) it is the latter.
//
// # Adoption
//
// Runner.Adopt takes over an attempt that an earlier agent process
// started under a task shim and left running (an Orphan: its leader's pid
// and start time, its work dir and exit file). The Task it returns acts
// as a started one (Preempt, Kill, Wait, Done), but, the leader not being
// this process's child, it learns of the leader's end by polling /proc
// (AdoptPoll) for the pid with the recorded start time, and takes the exit
// status from the shim's exit file. Its output comes from the shim's
// output file (OutputFileName, beside the exit file): once the agent that
// started the task is gone, the shim appends what the task writes there,
// one OutputRecord (JSON) a line, up to Runner.ShimOutputMaxBytes, after
// which it stops and counts the lines it drops in the exit file
// (ExitStatus.OutputDropped); it writes the exit file only once the
// output is in. The adopting Task reads the file from its start as it
// grows (OutputReader, every AdoptPoll) and gives its lines to OnLog, line
// n numbered Orphan.OutputSeqBase+n whichever agent process reads it, and
// all of them before Wait returns. A record that is not sound is dropped
// (a gap in Seq, counted in the next line's Dropped); a last one the shim
// did not finish (it was killed mid-write) is reported in Result.Error.
// A preemption the earlier agent asked for (its preempt file is still
// there) keeps its deadline. An attempt without a shim, one whose
// leader is gone or is not provably the recorded one, and any attempt
// off Linux are refused with ErrNotAdoptable. Once an adopted leader is
// gone its pid is no longer reserved, so the group is signalled only
// while the leader or a member of its group is alive.
//
// # Invariants
//
//   - No process of a task outlives it: when the group leader exits, the
//     rest of the group is SIGKILLed, and Wait returns only once no live
//     process is left in the group. The one exception is during a
//     preemption or a kill with a grace: if the leader exits first (a
//     shell killed by SIGTERM), the rest of the group gets until the
//     deadline to finish its checkpoint or its trap. A process that leaves the group (setsid) escapes this;
//     if it holds the output open, the agent closes its end after
//     Runner.OutputGrace and says so in Result.Error.
//   - On Linux the leader is not reaped until the group has been killed
//     (waitid with WNOWAIT), so a group signal can never reach a recycled
//     process id. Zombies do not count as live: orphans reparented to a
//     PID 1 that does not reap stay zombies, but run nothing.
//   - Output never slows the task. Pipes are read continuously into a
//     buffer of Runner.LogBufferBytes; a consumer (Runner.OnLog) that falls
//     behind loses the oldest buffered lines, which are counted in the next
//     delivered line's Dropped and in Result.DroppedLines, and show as gaps
//     in LogLine.Seq. The newest lines always survive. Lines longer than
//     MaxLineBytes are split (LogLine.Partial).
//     When the agent dies, a task's shim (Runner.Shim) reads its pipes
//     (ShimDrainArg) into its output file (ShimOutputArg), so the task is
//     not killed by SIGPIPE; until the shim notices, within orphanPoll,
//     the pipes hold the output and a full pipe waits. A write error
//     (a full disk) never reaches the task: the shim discards from then
//     on and says so in the exit file. What the dead agent had read and
//     not delivered is lost with it, and so is output that processes of
//     the task write more than ShimOutputGrace after its shell exited.
//   - Wait returns after the last OnLog call has returned, so a consumer
//     sees every delivered line before the result. A consumer that blocks
//     forever therefore blocks the result.
//   - Preempt and Kill are safe to call from any goroutine, any number of
//     times; a second Preempt keeps the first deadline, a second Kill
//     may bring its deadline forward but never back, and both return
//     ErrTaskDone once the task has exited by itself.
//
// The preemption and exit semantics are those the master's state machine
// expects: preempted attempts are requeued and their next attempt gets the
// same checkpoint directory and a higher restart count.
package agent
