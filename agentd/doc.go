// Package agentd is the node agent daemon behind `allot agent`: it speaks
// the agent protocol of package api to the master and drives an
// agent.Runner, which does the process work (process groups, environment,
// preemption protocol; see package agent). New checks a Config; Run
// registers, serves the master's commands until its context is
// cancelled, then shuts down.
//
// # Protocol
//
// Run registers the node (name, pool, labels, GPUs, the attempts it runs)
// and carries out the commands in the reply. The reply also says the pool
// the master put the node in and, when a node rule of the master's
// configuration sets labels, the node's labels: the agent logs them, and
// warns where the rule overrode its --pool or a --label (placement.go),
// which its admin would not learn otherwise; a sync reply brings the
// placement again when a reload of the master's configuration changed
// it, and the agent logs the move the same way and keeps the latest
// (Agent.Placement). Every sync acknowledges the placement generation
// heard last (Sync.PlacementGen), and the master repeats a move until
// one does, so that a lost reply does not lose it. Then two loops talk to the master. The sync loop
// long-polls POST /agents/{name}/sync, asking the master to hold it for
// the SyncWaitS of the registration; it is the heartbeat and brings the
// commands. The report loop sends new reports at
// once with a sync that does not wait, so that an exit need not wait for
// the long poll in flight. Every sync carries all unacknowledged reports
// and the attempts still running (started and not yet reported ended);
// the agent drops a report once SyncReply.Acked covers its Seq, and
// re-sends it otherwise. Seq counts from 1 in each agent process.
//
// Commands are idempotent, since the master may repeat one and two
// replies may carry the same one:
//
//   - start runs the attempt unless this process runs or ran it already
//     (a repeat is ignored). The spec's GPUs must be on this node, and an
//     empty WorkDir becomes WORKDIR/jobs/JOB/TASK, shared by the
//     attempts of a task so that the default checkpoint directory
//     (WorkDir/checkpoint) carries over. A spec that cannot start is
//     reported exited, outcome failed, with the reason in Error; a
//     started one is reported running.
//   - preempt calls Task.Preempt with GraceS; kill calls Task.Kill with
//     GraceS, the pool's kill_grace: SIGTERM to the group, SIGKILL of
//     what is left of it when the grace is over (at once for GraceS 0,
//     which the master sends for attempts it has ended already). After a
//     kill at once of an attempt adopted from an earlier agent process,
//     the next command waits until its group is gone (see Restarts;
//     after a kill with a grace it does not: the master holds that
//     attempt's GPUs until its end is reported). For an attempt the
//     agent does not know, it reports exited with outcome killed, so
//     that the master can close it; for one already ending or ended,
//     the exit report is on its way and nothing more is done.
//
// # Logs
//
// Output lines go into a buffer of Config.LogBufferLines and are posted
// in batches to /agents/{name}/logs, in order, each with its attempt and
// the Runner's per-attempt Seq, so that a re-sent batch is stored once.
// A batch is re-sent after network errors, 5xx, 404 and 429 with a
// backoff; one the master rejects (another 4xx) is dropped. When the
// buffer is full the oldest lines are dropped. Dropped lines (here or in
// the Runner's own buffer) leave gaps in Seq and are counted in the
// attempt's exit report's Error. Lines longer than agent.MaxLineBytes
// arrive as several lines.
//
// An attempt's exit report is queued only after every line read before
// its end has been delivered or dropped; until then the attempt is still
// listed as running. So a master that has stored the exit report has
// stored the attempt's logs, and `allot job logs` is complete once the
// job ends.
//
// # Outages
//
// When the master is unreachable or failing, tasks keep running, reports
// and logs wait (logs within the buffer), and the loops retry with
// capped exponential backoff whose jitter comes from a source seeded by
// Config.Seed (default: a hash of the name). While the master was last
// heard less than its agent timeout ago, the sync loop's and the log
// loop's delays are cut to outageRetryMax (1 s), their jitter kept
// (retryLimit), so that a restarted master hears from the node within
// about a second; past it they grow on to Config.BackoffMax. The first
// sync after a failure does not wait, so a returning master hears from
// the node at once. A sync answered 404 (the master lost the node) makes the agent
// register again, listing what it runs; the reports still pending follow.
// An attempt that exited while its exit report waits for its output lines
// is listed apart, as exited (api.Register.Exited), and in no sync's
// running list: the master charges an attempt listed running until then.
// Since that master answers, the backoff starts over (short first
// retries) and is capped at 5 s while the master answers with an error
// (log batches' too, whose delivery holds exit reports back),
// and a failed registration's reason is logged at warn level once per
// distinct reason (repeats at debug level). The 404 may come to another
// loop first (the report loop's exit reports after an outage): the sync
// loop, which alone registers, wakes from its backoff when another loop
// unregisters the node or hears from the master (awaitRetry).
//
// # Fence
//
// Tasks keep running through an outage only until the master would run
// them elsewhere: every reply of a master that fences carries
// api.Fence (its agent timeout and lost_node_grace, the pool's
// checkpoint grace, the attempts it holds through a loss), and
// fenceLoop stops, as a preemption does, each attempt the master would
// requeue before the agent timeout (less a margin) has passed since the
// last contact, and each held one after lost_node_grace too (fenceTimes
// says when). Their exit reports say preempted and that the fence
// stopped them. Without api.Fence (an older master, or fence: false)
// nothing is stopped. The task shims do not fence tasks whose agent
// died (docs/reliability.md). Contact is a reply; a heartbeat of a held
// long poll (below); a 503 of a master
// whose store is down (it loses no node meanwhile), and a restarted
// master's 404 that says how long it still holds the node
// (api.NodeLeaseHeader), as of when its count began (leasedLocked); a
// 404 without it (a lost node, whose attempts may run elsewhere) is
// not. Through an outage the sync loop's retries do not outlast the
// fence: each delay is cut to end fenceTryMargin before the fence's
// next stop (fenceRetryCap), so that a master back by then is heard.
//
// A long poll asks for heartbeats (api.SyncHeartbeatHeader): a master
// that sends them answers with its headers when it begins to hold the
// poll, then a byte of JSON whitespace every second or so, and the
// agent counts the headers and each read that brings bytes as contact
// (Agent.heartbeat, under the fence's standing terms; the reply brings
// new ones). That is sound, in a partition too, because the master
// never counts a node silent while it holds the node's sync (its count
// starts at the hold's end), so every byte left it at a moment before
// its count began, and the margin covers the byte's way as it covers a
// reply's; none counts later than the longest the master may hold the
// poll after it was sent (fenceState.hold), for bytes held back on the
// way. Counting from the last reply alone left the agent, whose
// master died late in a poll, the fence's wait less the poll's hold
// (up to 10 s): a 12 s master restart stopped preemptible work about
// one time in ten. The alternatives were worse: counting from when the
// poll was sent assumes the master counts from then, which it does not
// (a partition before the request arrived would have the fence late);
// shorter polls cost every node more requests and bound the loss only
// by their length. A master older than the heartbeats sends no header
// and the reply at the hold's end, and the fence counts from the reply,
// as before. The headers' 200 cannot be taken back: a sync the master
// fails after them (the node deleted during the hold) says so in the
// body (api.SyncReply.Status), and the agent treats it as that status.
// A held poll that brings no byte for three heartbeats and 2 s
// (heartbeatSilence) is given up and the agent syncs again: a connection
// gone without a word would hold it until its timeout, past the fence's
// stop, where a master back sooner could have been heard.
//
// # Time limits
//
// Every reply of a master that knows them lists when the node's
// attempts reach their jobs' time limits (api.TimeLimit), and
// limitLoop (timelimit.go) kills, as the master's time-limit kill does
// (SIGTERM, SIGKILL after the kill_grace of the attempt's start), an
// attempt whose deadline passed limitSlack (5 s) ago that no stop of the
// master's, nor the fence, has reached: a master whose store is
// unavailable, or that is out of reach, cannot kill it at its limit. The
// deadline is counted from the reply's arrival by the agent's clock
// (the time left it says), and the latest reply's list holds. The exit
// report says so (api.Report.StoppedAtLimit, sent only to a master that
// sent time limits since the registration) and the master ends the task
// as by its own time-limit kill. Without time limits in the replies (an
// older master) nothing is stopped.
//
// # Disowned
//
// A 401 that says the node's credential was revoked
// (api.CredentialHeader: a join token took the node's name over, or an
// admin revoked it) is final, unlike a master out of reach (the fence's
// case) or a 401 without it. The request that meets it, whichever loop
// sent it, unregisters the node; the sync loop's registration meets it
// too, tries the join token if the agent has one (drop keeps the revoked
// credential in its file, so that a restarted agent learns it with its
// first request), and unless that wins the name back the agent no longer
// holds the node (disown.go): it kills each attempt at once, with no
// checkpoint grace, as the master kills an ended attempt an agent
// registering lists (the master may have run it again from its
// checkpoint directory, which the orphan must not write), drops its
// reports and the journal, queues no more, posts no log batch, says
// nothing at its stop, logs once at error level what an admin must do,
// and stays up: it tries the join token every disownRetry while the
// master's answer leaves that open (the name held), and never otherwise.
// A registration that succeeds makes the node the agent's again.
//
// Once registered, before its first sync, the agent also stops the task
// shims that an earlier agent of the same node (the same name and master,
// as that work directory's state file records them) left running from
// another work directory of the host, found in /proc (strays.go): a
// takeover on the same machine ended their attempts, and they would share
// the GPUs the agent hands out. Shims it cannot place are named in an
// error-level log line.
//
// # Restarts
//
// The agent records the attempts whose process groups may be alive (task
// id, group id, the leader's start time, work dir, the shim's exit file,
// node rank and GPUs), and those ended whose output file is left to
// deliver, in WORKDIR/agent-state.json, rewritten atomically
// on every start and end, and holds an exclusive lock on WORKDIR/
// agent.lock so that no two agents share a work directory. A new agent
// process reads the file and, for each recorded attempt still alive from
// the same boot (adopt.go, orphanFateOf):
//
//   - adopts it when it runs under a task shim (the record has an exit
//     file) and its leader is alive with the recorded start time, read in
//     /proc, and it has not ended (no exit file yet, no exit journaled).
//     The attempt is kept in the state file and listed as running at
//     registration, with a running report. The agent cannot wait() for
//     a process it did not start, so agent.Task polls the leader (every
//     agent.AdoptPoll); once the group is gone it reports the outcome
//     the shim recorded (completed, failed with the exit code, preempted
//     if a preemption was asked, by this agent or by the dead one whose
//     deadline still holds, killed if killed; failed when the shim died
//     without an exit file). Preempt and kill act on the group as on a
//     started attempt. Its output since the earlier agent died comes from
//     the shim's output file (agent.OutputFileName), read from its start
//     and shipped as the attempt's other lines, numbered from
//     adoptOutputSeqBase by line of the file, so that an agent that
//     adopts the attempt again, reading the file again, sends lines the
//     master stores once. They wait in the file, not in the log buffer,
//     when the buffer is full (shipper.pushWait), until the agent stops
//     (then they push the oldest out, as other lines do, so that a stop
//     with the master down stays bounded), and the exit report follows
//     them as any attempt's. Once the exit report is queued the
//     file is removed. One stderr line of the agent's, "[allot agent]
//     ...", numbered above any line of the earlier process and below
//     the file's (adoptSeqBase), says where the output comes from and
//     what is lost: the lines the dead agent had read and not delivered,
//     those past the file's cap (Runner.ShimOutputMaxBytes; counted in
//     the exit report's Error), and output of the task's processes more
//     than agent.ShimOutputGrace after its shell exited. A shim an older
//     agent started keeps no output file (agent.Task.OutputFile is ""):
//     the line says that the output since the death is lost.
//   - otherwise kills the group at once (SIGKILL, no kill_grace: the
//     master ends such an attempt and may run its task again on the same
//     GPUs and checkpoint directory) when it is provably the attempt's: its leader alive with the recorded start time, or a
//     member carrying the attempt's ALLOT_JOB_ID, ALLOT_TASK_INDEX and
//     ALLOT_ATTEMPT; a group id reused by something else is left alone.
//     The master ends such an attempt as lost, unless the exit file its
//     shim left says how it ended (recoverExit). Without /proc, off
//     Linux, nothing can be proven: nothing is adopted or killed.
//   - and, whatever else it does, reports the end of an attempt that
//     ended while no agent ran, from
//     the exit file its shim left (recoverExit), with the next sync
//     after registration, which does not list it as running. The
//     report is not held back for the attempt's output: the master ends
//     an attempt that registration leaves out as lost unless that sync
//     reports its end, and it stores an attempt's lines after its end
//     as before (only a gang's parts lose their interleaving then). The
//     output file's lines are delivered as an adopter's, numbered alike,
//     then an "[allot agent]" line numbered after them (endedNoteSeqBase:
//     the log reads in Seq order, and every line of the file is older
//     than the agent's), ended.go. Until they are handled
//     the attempt stays in the state file, marked ended (only its output
//     is looked at then, never its group), and its file on disk; then
//     both go. An agent that stops or dies first leaves them to the next
//     one, which delivers the file again, stored once.
//
// Adoption is safe against the master's view because registration
// reconciles it: an adopted attempt the master still expects on the
// node stays running; one it has ended meanwhile (as lost, and perhaps
// started again here on the same GPUs and checkpoint directory) gets a
// kill command at once (GraceS 0) in the registration's reply, ahead of
// any start. Commands run in order, and such a kill of an adopted
// attempt returns only once its group is gone (awaitKilled), so nothing
// the reply starts runs beside it. An unreadable state file stops the agent with an error naming it
// rather than risk leaving orphans unknown.
//
// # Shutdown
//
// When Run's context is cancelled, the agent stops executing commands.
// Under ExitKill (the default) it says goodbye: a sync with Leaving goes
// out as it preempts every task with Config.ExitGrace, so that the
// master places nothing more on the node (not even the tasks it requeues
// on their exits), and every later sync says Leaving too, as does every
// registration from then on (api.Register.Leaving): a sync answered 404
// (a restarted master) has the agent register again at once, still
// leaving, so that the master keeps the leave (or starts it, if it never
// heard the goodbye) and does not take the agent for a new process that
// takes work; a start that still comes is reported preempted without
// running. Tasks that follow
// the preemption protocol checkpoint; the agent waits for them to end,
// syncing meanwhile as its sync loop did (a grace longer than the
// master's agent timeout would otherwise get the node marked lost),
// then spends at most FinalTimeout delivering their logs and exit
// reports (outcome preempted, so the master requeues them) before it
// returns. The sync that carries the last reports, with nothing
// running, is Final: the master marks the node left, not lost. What the
// master does not get, it ends as lost when the node stops syncing.
// Under ExitKeep it leaves the tasks running, unreported, and keeps them
// in the state file: the master ends them as lost once the node is
// silent for its agent timeout, and the next agent on the work directory
// adopts what is left (and kills, at the master's word, what the master
// has ended). Their shims keep their output from then on, as after a
// crash, up to the output file's cap; ExitKeep is for debugging, not for
// upgrades.
//
// # Types and locks
//
// Agent.mu guards the protocol's state: the attempts, the reports and
// their Seq, the registration. Two parts own their state beside it: the
// node's credential and its file (credential, credential.go), under a
// mutex of its own under which no other is taken; and the journal of
// exit reports (journal, journal.go), which mu guards, rewritten
// whenever the exit reports pending change. execMu and stateMu are
// taken before mu (agent.go). What an earlier agent process left (its
// attempts to adopt or kill, the ends it could not report) is handled by
// orphans (adopt.go, state.go, ended.go), a part that holds only the
// Agent and takes its locks as the Agent's own methods do; what another
// work directory's agent of the node left, by strays (strays.go), which
// takes no lock. So are a registration (registrar, register.go: the
// request, its retries, what is logged of it; the sync loop's keeps the
// reason it last logged) and an attempt's metrics file (metricsWatch,
// metrics.go, which owns the file's offset and its skipped lines).
//
// # Invariants
//
//   - A report's Seq is never reused within a process; reports are sent
//     in Seq order and dropped only when acknowledged.
//   - An attempt is listed as running from its start until its exit
//     report is queued, never after; its running report precedes its
//     exit report.
//   - Every attempt whose process group may be alive is in the state
//     file before the master hears that it runs.
package agentd
