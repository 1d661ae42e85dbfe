// Package e2e holds Allot's end-to-end tests. They build the real `allot`
// binary (and examples/train) once, then run real processes: a master on
// SQLite or PostgreSQL (store/pgtest), agents with fake GPUs whose tasks
// are real process groups, the CLI with ALLOT_MASTER set, `allot dev`,
// and the dashboard in headless Chromium. Nothing is mocked.
//
// # Invariants of the harness
//
//   - Every process a test starts, and every task its agents start, carries
//     the environment variable E2E_CLUSTER with a value unique to the
//     test's cluster; cleanup stops the daemons gracefully (checking that
//     they exit 0), then SIGKILLs every process group it started and every
//     process still carrying the marker, so no test leaves anything
//     running, even after kill -9 of an agent.
//   - Waits poll the real API under a context deadline and fail with what
//     they last saw; no test sleeps to assert. Deadlines are generous,
//     because the binaries run with the race detector on a loaded machine.
//   - With -race the binaries are built with -race too, and any data race
//     a daemon reports fails the test.
//
// # Tests
//
//   - TestSubmission, TestDistributed (submit_test.go): every job kind
//     through `allot submit` on SQLite and PostgreSQL; a gang over nodes.
//   - TestBadInput (badinput_test.go): bad job files and requests get
//     clear errors and create nothing.
//   - TestPreemptionCheckpointAndResume, TestPreemptionKilledAtGraceDeadline
//     (preempt_test.go): examples/train checkpoints and resumes; a task
//     that ignores the request is killed at the grace deadline.
//   - TestRequeueSaysWhetherItCheckpointed (requeueckpt_test.go): a
//     requeued task that wrote into its checkpoint directory is said to
//     resume from its checkpoint, one that wrote nothing to start over,
//     as its agent's exit report says.
//   - TestAgentCrash, TestAgentRestartAdopts (crash_test.go): kill -9 of
//     an agent; its node is lost, its tasks requeued or failed, and the
//     orphans the next agent adopts killed at the master's word. Restarted
//     at once instead, the next agent adopts the task of a job that is
//     not preemptible, which completes with its one attempt, and what it
//     printed after the kill -9 is in its log.
//   - TestAgentLeave (leave_test.go): Ctrl-C of an agent; its node left
//     at once, its task preempted and requeued on the other node only.
//   - TestAgentStopGang (gangstop_test.go): SIGTERM of the agent of one
//     node of a 2-node gang; the other rank checkpoints with the pool's
//     grace, the attempt ends preempted (not lost), and the job runs
//     again once the agent is back.
//   - TestMasterCrash (mastercrash_test.go), on SQLite and PostgreSQL:
//     kill -9 of the master with tasks running, jobs queued and
//     submissions in flight, twice in a row; no job is lost, duplicated or
//     half-created, running attempts are taken back without a restart,
//     and everything completes with all its output.
//   - TestMasterOutageKeepsTasks (outage_test.go): kill -9 of the
//     master for 12 s, under the fence's 21 s, while a preemptible task
//     runs, right after a reply and 9 s into an idle long poll (whose
//     heartbeats the fence counts as contact): the agent's fence stops
//     nothing, the restarted master takes the attempt back, and it
//     completes on its one attempt.
//   - TestSeed001PriorityWalkthrough (seed001_test.go): seed 001's
//     priority example, live, step by step, holding after every step the
//     slots the simulator holds in its replay of
//     testdata/scenarios/seed001-priority-backfill.yaml.
//   - TestDev (dev_test.go), TestDashboard (dashboard_test.go): `allot
//     dev` from start to Ctrl-C; the dashboard in headless Chromium.
//
// Tasks that must run until the test says so use holdScript
// (hold_test.go): they end when the test creates their release file, and
// checkpoint and exit on a checkpoint request.
//
// The package has no non-test code besides this comment.
package e2e
