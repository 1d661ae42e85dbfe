// Package store is the master's durable memory: jobs, their tasks and the
// tasks' attempts, nodes, task logs, GPU usage for fair share, and an event
// log of every transition, with the history of the nodes' states beside
// it (NodeEvents: each loss, return, drain, resume, deletion and change
// of inventory, when, a deletion with the node as it was, a new node and
// a registration that changed its GPUs, labels or pool with the node as
// it registered; PruneJobs leaves it), and
// the reservations conservative backfilling carries between passes (one
// per job, replaced whole; PruneJobs forgets them with the job), and
// marks, named facts that once set stay set (Mark, Marked: MarkGrows,
// that an elastic job was scheduled; PruneJobs leaves them), and what
// PruneJobs forgot, in all (Forgotten: how many jobs, the latest end
// among them), where the master's complete history begins. The
// master persists each transition here before acting on it, and after a
// restart (or a crash of itself or of the database) reloads its state
// from here and reconciles with the agents.
//
// One interface, Store, has two backends behind Open: SQLite
// (modernc.org/sqlite, a file in the data directory, WAL mode, one writer)
// by default, and PostgreSQL (pgx) for larger installations. Both run the
// same SQL through database/sql; the schema comes from embedded, numbered
// migrations (migrations/<dialect>/NNNN_name.sql) applied on Open, each in
// its own transaction together with its row in schema_migrations. The
// package storetest is the conformance suite both backends pass, and
// pgtest starts throwaway PostgreSQL servers for tests.
//
// Each read outside Update is a transaction of its own; JobRecords reads
// a job, its tasks and their attempts in one read-only transaction that
// sees one instant (snapshot.go: SQLite's WAL read transaction,
// PostgreSQL's REPEATABLE READ), so that a task read ended never shows
// its attempt open, without holding up writers.
//
// # One master per database
//
// A PostgreSQL store holds the master lock for its whole life (pglock.go):
// a session-level advisory lock, pg_try_advisory_lock(masterLockClass,
// FNV-1a of the schema), taken before anything is read or migrated, on a
// connection of its own outside the pool whose application_name is
// "allot-master HOST:PID#N". Open refuses, with an error matching ErrLocked
// that names the database (never its password) and the holder as
// pg_stat_activity shows it, when another session holds it for more than
// a moment. Installations in different schemas of one database do not
// conflict. SQLite needs no lock here: the master locks the data
// directory and the database file (PATH.lock) itself, and Open may be
// called twice on one file (tests, tools).
//
// The lock dies with its session, so it is lost whenever PostgreSQL
// restarts. Writes are gated on it: every new connection of the pool
// first checks the lock session (and takes the lock back if it is gone),
// so after a restart, when all the old connections are dead, nothing is
// written before the lock is held again; every write also checks a flag
// that a watch clears when the lock session fails its once-a-second
// check, and takes the lock back (with backoff) while the database is
// away. A lost session alone, with the server up and the pool's
// connections alive, is thus noticed within about a second. If another
// master took the lock in between, the loss is final: every write fails
// with ErrLocked and LockLost reports it, and the master stops.
//
// Within that second a write on a pooled connection would still commit
// but for the fencing epoch (pgfence.go): a master increments the one row
// of master_epoch whenever it takes the lock, and every write transaction
// reads the row FOR SHARE before its commit and fails with ErrFenced
// (which matches ErrLocked: the loss is final) unless the epoch is its
// master's. The row lock makes an increment wait for the transactions
// that read it before, and those after see it, so no write of a master
// commits after another took the lock. The row also names the master that
// incremented it last (its application name and a random token): taking
// the lock back, a master increments only if the row still names it, and
// is fenced otherwise, as another master took over in between. So a
// master whose own increment committed but whose reply was lost (its
// session cut right after) is not stopped by it: it takes the lock back,
// finds its own name and increments again. Until then a write that finds
// an epoch its master does not know, with the lock session down, fails
// without deciding (it may be its own) and the taking back decides.
//
// # Using it
//
// Every method of Store runs in its own transaction. Store.Update runs a
// function in one transaction, for what must happen together: the
// master's applier applies a whole plan (several task starts, a job going
// running) in one Update, and ends an attempt and records its usage in
// one Update. Reads inside Update see the transaction's own writes.
//
// # The task state machine
//
//	queued ──→ starting ──→ running ──→ preempting ──→ preempted ──→ queued
//	  │            │           │             │
//	  │            └───────────┴─────────────┴──→ completed | failed | killed
//	  └──→ killed                  (and → killing → killed)
//
// starting, running, preempting and killing are active: the task holds an
// open attempt. queued and preempted are idle. completed, failed and killed
// are terminal. TransitionTask accepts any move between distinct states
// except out of a terminal state and into starting from an active one; the
// master decides which of those it uses. The one way out of a terminal
// state is no transition: AmendLostEnd ends a task failed as lost, and its
// job, as its agent reported once back, when the attempt's process had
// exited before the master gave up on it (LateExit). NoteLostExit moves
// no state either: it notes on an attempt left lost (its task requeued)
// how its agent, back, reported it ended before the loss (LostExit).
//
// The task and job states are the shared vocabulary of package lifecycle
// (TaskState and JobState are aliases of its types, the constants of its
// constants), which the simulator's task records use too; the strings the
// tables hold are those of the schema's CHECK constraints, unchanged.
//
// # Invariants
//
//   - A job and all its tasks are created in one transaction: no job is
//     ever half-created. Job ids are assigned by the store, never reused,
//     and increase in the order jobs are created (with PostgreSQL, two jobs
//     created concurrently may become visible in either order, and a
//     rolled-back creation leaves a gap).
//   - Every state change is a compare-and-set on the expected state (and,
//     for tasks, optionally the expected attempt number). A mismatch writes
//     nothing and returns a *ConflictError, which matches ErrConflict; the
//     transaction is still usable, so an applier can skip that step.
//   - Terminal states are final, for jobs and tasks alike.
//   - A task has an open attempt exactly when its state is active. Moving
//     into starting opens attempt number Task.Attempt+1 with its
//     placement; moving from an active state to an idle or terminal one
//     closes it with an end state and exit code (both required then, and
//     refused otherwise). Attempts are numbered 1, 2, 3... without gaps.
//   - Task.Restarts counts the attempts that ended with the task going
//     back to queued or preempted.
//   - A task in preempting may hold a reserved placement (Task.Reserved):
//     where it restarts as soon as its attempt ends, for a move or a
//     resize. Only the transition to preempting sets it and every
//     transition replaces it, so a task outside preempting has none.
//   - A job's QOS and nice are its job file's (Job.Spec) until a change
//     (UpdateJob) sets them (Job.QOS, Job.Nice; Job.QOSNice reads both).
//   - Every job creation ("" → queued, one event per job, none per task),
//     job and task transition, and change of a job's priority, weight,
//     preemptibility, time limit, QOS or nice appends an Event in the
//     same transaction: the event
//     log is complete and ordered by Event.Seq. What programs read of
//     it they read off facts, never off reasons, which are for users and
//     may be reworded: a task transition's Cause and PartRan, a job
//     change's values (Event.Change). (On PostgreSQL the events
//     of an Update are written together just before its commit, in the
//     order recorded: a read of the events within the Update does not
//     see them yet. Its attempt writes (open, running, end) are gathered
//     too and written a run of one kind per statement, in order, before
//     anything that needs them: a log line or metric, a read of the
//     attempts, a prune, and the commit. A PostgreSQL transaction is
//     aborted by any failed statement, so an attempt write that fails
//     then fails the Update just as it did when sent at once.)
//   - Log lines are keyed by (job, task, attempt, seq): re-sending a batch
//     stores nothing twice, and a line for an attempt that does not exist
//     is refused. Logs read back in (attempt, seq) order.
//   - Times are stored as Unix nanoseconds and come back in UTC, equal to
//     what was written. Caller-given JSON (job spec, hyperparameters) comes
//     back byte for byte; nil stays nil.
//   - Once a method or an Update returns nil, its writes survive a crash
//     of the process (and, with the default SQLite synchronous=full or a
//     PostgreSQL with fsync on, of the machine).
//   - On PostgreSQL nothing is written unless this store holds the master
//     lock, and no write commits once another store has taken the lock
//     (the fencing epoch; see One master per database).
//
// # Structure
//
// One type, sqlStore (sqlstore.go), serves both dialects: Update runs
// the transactions (group commit and the statement cache on SQLite, the
// gathered events and attempt writes on PostgreSQL), ops runs the SQL of
// jobs, tasks, attempts, nodes, logs and history over a transaction or
// the readers (Tx is ops; it embeds reads, the queries of jobs, tasks,
// events, usage, logs and metrics that need nothing of a write under
// way, nodeOps, the nodes' rows and events, masterRows, the marks and reservations, and authOps
// (auth.go), the identity side's (Auth: users, roles, credentials, the
// audit log), parts over the same conn, so that they are declared apart
// and promoted for Tx). The identity side is part of Tx so that a change
// of users or credentials and its audit entry commit together
// (master.RecoverAdmin).
//
// # Errors
//
// Errors wrap ErrNotFound, ErrConflict or ErrInvalid when the caller can act
// on them, and say what failed. Any other error comes from the database
// itself; inside Update the function should then return it, since
// PostgreSQL refuses further statements in a transaction that hit one.
//
// # Concurrency
//
// A Store is safe for concurrent use. With SQLite there is one writer
// connection (transactions begin IMMEDIATE) and readers run beside it.
// Concurrent Updates are group-committed: they run one after the other in
// one shared transaction, each in its own savepoint (a failing, panicking
// or exiting one undoes only its own writes), and commit with one fsync;
// each Update still returns only after its writes are committed, and a
// failed commit fails every Update of the group. Inside Update use only
// the Tx given, never the Store, or the nested write waits forever for the
// writer that waits for it. With PostgreSQL each Update is its own READ
// COMMITTED transaction: decide on state through the compare-and-set
// methods, not by reading and then writing.
package store
