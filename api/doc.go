// Package api holds the wire types of Allot's REST/JSON API under /api/v1:
// the user side (jobs, nodes, pools, projects, logs) used by the CLI and
// the dashboard, and the agent protocol used by `allot agent`. The master
// (package master) serves them, the clients (package client and the agent
// daemon) send them. It has no behaviour beyond small helpers, so that
// both ends compile against one definition.
//
// # Conventions
//
//   - JSON field names are snake_case; times are RFC 3339 in UTC; durations
//     are whole seconds in fields ending in _s.
//   - Request bodies are decoded strictly: unknown fields, trailing data and
//     bodies over MaxBodyBytes are rejected with 400 or 413.
//   - Every error response is an Error object with a message that names
//     the offending field, and the HTTP status says who is at fault.
//   - Every request carries a bearer token: a user's API token, or for the
//     agents' endpoints a join token or a node credential (docs/security.md).
//     A job's user is the token's user.
//
// # Endpoints
//
//	POST   /api/v1/jobs                  submit a job file given as JSON → 201 SubmitReply
//	POST   /api/v1/jobs?dry_run=true     judge it as a submission, storing nothing → 200 DryRun
//	GET    /api/v1/jobs                  []Job in scheduling order; ?state=&pool=&project=&user=
//	GET    /api/v1/jobs/{id}             Job with TaskList
//	PATCH  /api/v1/jobs/{id}             JobUpdate → Job
//	POST   /api/v1/jobs/{id}/kill        → KillReply (Job, already_ended)
//	POST   /api/v1/jobs/kill             KillJobs → []KillResult (one step)
//	GET    /api/v1/jobs/{id}/logs        Logs; ?task=N&after=CURSOR&wait=SECONDS (long poll)
//	GET    /api/v1/nodes                 []Node
//	GET    /api/v1/pools                 []Pool
//	GET    /api/v1/projects              []Project
//	POST   /api/v1/config/reload         re-read the master's config file → 204
//	GET    /api/v1/openapi.json          the OpenAPI 3 description of all of this
//	POST   /api/v1/agents/register       Register → RegisterReply
//	POST   /api/v1/agents/{name}/sync    Sync → SyncReply (404: register again)
//	POST   /api/v1/agents/{name}/logs    LogBatch → 204
//	GET    /metrics                      Prometheus metrics
//	GET    /healthz                      200 once the store is open
//	GET    /                             the dashboard
//
// # The agent protocol
//
// Agents initiate every exchange, so an agent behind NAT or a restarted
// master needs nothing but the master's address:
//
//  1. POST /api/v1/agents/register with a Register: name, pool, labels,
//     GPUs, and the attempts the agent is running right now. The master
//     upserts the node and reconciles: attempts it believes run on the
//     node but the agent does not report are ended as lost; attempts the
//     agent reports that the master does not know (or that ended) are
//     answered with kill commands. The RegisterReply says what the master
//     made of the node (its pool, and its labels where a node rule of
//     the configuration sets some), which a rule may decide over what
//     the agent asked for.
//  2. POST /api/v1/agents/{name}/sync in a loop, with a Sync: the reports
//     since the last acknowledged sync (attempt running, attempt exited
//     with outcome and exit code) and the attempts still running. The
//     master persists the reports, then answers with a SyncReply holding
//     the commands for the node (start, preempt, kill) and the sequence
//     number of the last report it stored. The agent drops acknowledged
//     reports and re-sends the others, so a lost reply loses nothing.
//     The master holds the request up to WaitS seconds when it has no
//     command, which makes the sync both the heartbeat and a long poll.
//     An agent that sends SyncHeartbeatHeader gets the headers when the
//     hold begins and a whitespace byte every second or so until the
//     reply, each of which its fence counts as contact.
//     A reload of the configuration that changes the node's placement
//     (NodePlacement) reaches the agent in the next SyncReply, and in
//     every one after until a Sync acknowledges its PlacementGen (an
//     agent that sends none, older than the field, is told once).
//  3. POST /api/v1/agents/{name}/logs with LogBatch: lines carry the
//     sender's sequence numbers, so a re-sent batch is stored once.
//  4. Leaving: an agent that shuts down and stops its tasks first sends a
//     sync with Leaving, before it stops them, and sets it on every sync
//     after: the master places nothing more on the node, as if it were
//     drained, so that the tasks it requeues on their exit reports go
//     elsewhere. The sync that carries the agent's last reports, with
//     nothing running, adds Final: the master marks the node left (a node
//     state, like lost, in which it takes no task) at once, and the
//     attempts ended as the reports said, with nothing lost. An agent
//     that goes silent before its Final sync is lost as usual. A node
//     that left comes back up when it registers again. A leaving agent
//     that registers again (its sync got 404) sets Register.Leaving, and
//     the leave goes on, or starts; a registration without it ends a
//     leave of the node.
//
// A sync for a node the master does not know (it lost its database, or
// the node was never registered, or the master restarted since the node
// registered) gets 404, and the agent registers again, which reconciles
// it after a master restart. For a node the master knows and has not
// lost, the 404 says how long it waits for the registration
// (NodeLeaseHeader).
//
// The master decodes agents' bodies strictly, refusing a field it does
// not know: a field newer than the protocol's first goes to a master
// only when its RegisterReply.Accepts named it (the Accept constants:
// Report.Checkpoint, Sync.Starting), so that a new agent works with an
// older master, which names none.
package api
