package mastertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// ErrNotRegistered is returned by Sync when the master answered 404.
var ErrNotRegistered = errors.New("master does not know this agent")

// Exit says how a fake attempt ends.
type Exit struct {
	Outcome  agent.Outcome
	ExitCode int
	// After delays the exit report by this long (Run only); 0 reports it in
	// the same sync as the running report.
	After time.Duration
	// StartError, when set, says the attempt could not start: the agent
	// reports it exited, failed, with this error and no exit code, and
	// never running, as agentd reports a spec it cannot start. Outcome,
	// ExitCode and After are then not read.
	StartError string
	// Silent, when set, says the start is never answered: the agent
	// neither runs the attempt nor reports on it, as an agent whose
	// start hangs (the master gives it up after its start grace).
	Silent bool
	// Deferred, when set, says the start waits, as agentd defers a start
	// on GPUs an attempt being stopped still holds: the agent neither
	// runs it nor reports on it, and lists it starting in its syncs
	// (api.Sync.Starting) to a master that accepts the list, until
	// Release starts it.
	Deferred bool
}

// Agent is a fake node agent. It registers, syncs, and "runs" start
// commands by reporting them running; it reports preempted and killed
// attempts as exited at once (unless HoldPreempt or HoldKill), and exits others when
// OnStart says so or when the test calls Exit. Set the fields before the
// first call; the methods are safe for concurrent use.
type Agent struct {
	// Master is the master's base URL, e.g. an httptest.Server's URL.
	Master string
	Name   string
	Pool   string
	// GPUs is how many GPUs to declare, of type GPUType (default h100).
	GPUs    int
	GPUType string
	Labels  map[string]string
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// WaitS is the long-poll wait that Run asks for (default 1).
	WaitS int
	// OnStart, when set, is called for every start command and may say
	// how the attempt ends; nil keeps it running.
	OnStart func(agent.TaskSpec) *Exit
	// HoldPreempt keeps preempted attempts running until Exit is called,
	// as a task that takes its time to checkpoint would.
	HoldPreempt bool
	// DropReplies loses the next that many sync replies, as a reply cut
	// off on its way: their commands and acknowledgements never arrive.
	DropReplies int
	// HoldKill keeps killed attempts running until Exit is called, as a
	// task that traps SIGTERM and takes its kill grace would; a kill at
	// once (GraceS 0) still ends them at once.
	HoldKill bool
	// Token is the join token the agent registers with; once the master
	// issues the node's credential, the agent presents that instead.
	Token string
	// ReportNow makes Run send each new report at once with a sync that
	// does not wait, as agentd's report loop does, so that an exit need
	// not wait for the long poll in flight.
	ReportNow bool
	// OnAck, when set, is called with the reports that a sync's reply
	// acknowledged (each report once), outside the agent's lock.
	OnAck func([]api.Report)
	// AckPlacement makes the agent acknowledge the placement generation
	// it heard last (api.Sync.PlacementGen), as agentd does; without it,
	// it syncs as an agent older than the field, told of a move once.
	AckPlacement bool
	// Checkpoint is the api.Report.Checkpoint of every exit report the
	// agent makes, sent only to a master that accepts the field (as
	// agentd does); "" says nothing, as an older agent.
	Checkpoint string

	mu sync.Mutex
	// accepts is the latest registration reply's api.RegisterReply.Accepts.
	accepts []string
	// deferred are the starts Exit.Deferred holds back.
	deferred map[agent.TaskID]agent.TaskSpec
	seq      int64
	pending  []api.Report // not yet acknowledged
	running  map[agent.TaskID]agent.TaskSpec
	// exited are the attempts that ended with their exit reports held
	// back (HoldExit), as agentd's watch holds them until their output is
	// delivered: in no running list, and named exited by the syncs and
	// registrations (api.Sync.Exited, api.Register.Exited) until the
	// report goes (Exit, or Inject of an exit report).
	exited   map[agent.TaskID]bool
	started  []agent.TaskSpec
	commands []api.Command
	timers   []*time.Timer
	cred     string
	leaving  bool
	placeGen int64 // the highest placement generation heard since registering
	// reported is signalled when a report is queued (ReportNow).
	reported chan struct{}
}

// Credential returns the node credential the master issued, if any.
func (a *Agent) Credential() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cred
}

// Register registers the agent with the running attempts it has, as a
// new agent process: a leave (Leave) ends.
func (a *Agent) Register(ctx context.Context) (api.RegisterReply, error) {
	return a.register(ctx, false)
}

// Rejoin registers the agent again as the same process, as agentd does
// when the master no longer knows the node (a restarted master answers
// its sync with 404): a leaving agent goes on leaving, its registration
// and its next syncs saying so (api.Register.Leaving), as agentd's
// registrations while it shuts down do.
func (a *Agent) Rejoin(ctx context.Context) (api.RegisterReply, error) {
	return a.register(ctx, true)
}

func (a *Agent) register(ctx context.Context, same bool) (api.RegisterReply, error) {
	a.mu.Lock()
	gpus := make([]api.GPU, a.GPUs)
	typ := a.GPUType
	if typ == "" {
		typ = "h100"
	}
	for i := range gpus {
		gpus[i] = api.GPU{Index: i, UUID: fmt.Sprintf("GPU-%s-%d", a.Name, i), Type: typ, MemoryMiB: 81920}
	}
	a.leaving = a.leaving && same
	reg := api.Register{Name: a.Name, Pool: a.Pool, Labels: a.Labels, GPUs: gpus, Running: a.runningLocked(),
		Exited: a.exitedLocked(), Version: "mastertest", Leaving: a.leaving}
	a.mu.Unlock()
	var reply api.RegisterReply
	if err := a.post(ctx, "/agents/register", reg, &reply); err != nil {
		return reply, err
	}
	a.mu.Lock()
	if reply.Credential != "" {
		a.cred = reply.Credential
	}
	a.placeGen = reply.PlacementGen
	a.accepts = reply.Accepts
	a.mu.Unlock()
	a.handle(reply.Commands)
	return reply, nil
}

// Sync sends the unacknowledged reports and the running list, and handles
// the commands of the reply. It returns ErrNotRegistered on 404.
func (a *Agent) Sync(ctx context.Context, waitS int) (api.SyncReply, error) {
	a.mu.Lock()
	s := api.Sync{Reports: slices.Clone(a.pending), Running: a.runningLocked(), Exited: a.exitedLocked(), WaitS: waitS, Leaving: a.leaving}
	if slices.Contains(a.accepts, api.AcceptSyncStarting) {
		for id := range a.deferred {
			s.Starting = append(s.Starting, id)
		}
		sortIDs(s.Starting)
	}
	if !slices.Contains(a.accepts, api.AcceptReportCheckpoint) {
		for i := range s.Reports {
			s.Reports[i].Checkpoint = ""
		}
	}
	s.Final = a.leaving && len(s.Running) == 0
	if a.AckPlacement {
		s.PlacementGen = a.placeGen
	}
	a.mu.Unlock()
	if s.Reports == nil {
		s.Reports = []api.Report{}
	}
	var reply api.SyncReply
	if err := a.post(ctx, "/agents/"+a.Name+"/sync", s, &reply); err != nil {
		return reply, err
	}
	a.mu.Lock()
	if a.DropReplies > 0 {
		a.DropReplies--
		a.mu.Unlock()
		return api.SyncReply{}, nil
	}
	a.placeGen = max(a.placeGen, reply.PlacementGen)
	var acked []api.Report
	a.pending = slices.DeleteFunc(a.pending, func(r api.Report) bool {
		if r.Seq <= reply.Acked && a.OnAck != nil {
			acked = append(acked, r)
		}
		return r.Seq <= reply.Acked
	})
	a.mu.Unlock()
	if len(acked) > 0 {
		a.OnAck(acked)
	}
	a.handle(reply.Commands)
	return reply, nil
}

// Run registers and syncs until ctx ends, registering again when the
// master asks, and retrying after errors.
func (a *Agent) Run(ctx context.Context) error {
	wait := a.WaitS
	if wait == 0 {
		wait = 1
	}
	var reporter sync.WaitGroup
	if a.ReportNow {
		a.mu.Lock()
		a.reported = make(chan struct{}, 1)
		a.mu.Unlock()
		reporter.Add(1)
		go func() { defer reporter.Done(); a.reportLoop(ctx) }()
	}
	registered := false
	for ctx.Err() == nil {
		var err error
		if !registered {
			_, err = a.Register(ctx)
			registered = err == nil
		} else {
			_, err = a.Sync(ctx, wait)
			if errors.Is(err, ErrNotRegistered) {
				registered = false
				continue
			}
		}
		if err != nil && ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	a.mu.Lock()
	for _, t := range a.timers {
		t.Stop()
	}
	a.mu.Unlock()
	reporter.Wait()
	return nil
}

// reportLoop sends queued reports with syncs that do not wait, until ctx
// ends. A failed sync is not retried here: the reports stay pending and
// go with the next sync of either loop.
func (a *Agent) reportLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.reported:
		}
		a.mu.Lock()
		idle := len(a.pending) == 0
		a.mu.Unlock()
		if !idle {
			a.Sync(ctx, 0)
		}
	}
}

// Restart forgets everything, as a restarted agent process would: running
// attempts (their processes died with it) and unsent reports.
func (a *Agent) Restart() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq, a.pending, a.running = 0, nil, nil
}

// NewHost forgets everything and the node's credential, as an agent
// started on a new work directory (or machine) that registers next with
// its join token (Token) and takes the node over: the old attempts are
// not its own.
func (a *Agent) NewHost() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq, a.pending, a.running, a.exited, a.cred = 0, nil, nil, nil, ""
}

// Leave makes every sync from now on say that the agent is leaving
// (api.Sync.Leaving), as agentd's do once it shuts down, and Final once
// it runs nothing: the test ends the attempts (Exit), as agentd stops
// its tasks. Register ends it, as a new agent process; Rejoin keeps it.
func (a *Agent) Leave() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.leaving = true
}

// Forget drops a running attempt without a report, as an agent that
// lost its process without a word: the master learns of it when the
// agent registers again without it. It reports whether it ran.
func (a *Agent) Forget(id agent.TaskID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.running[id]
	delete(a.running, id)
	return ok
}

// exitedLocked lists the attempts HoldExit holds, sorted.
func (a *Agent) exitedLocked() []agent.TaskID {
	var ids []agent.TaskID
	for id := range a.exited {
		ids = append(ids, id)
	}
	sortIDs(ids)
	return ids
}

// Inject queues a report as it is, whatever the agent runs: for tests of
// reports on attempts the agent never had, or of an exit at a time of
// the test's (At; the wall clock when zero). An exit report ends what
// HoldExit held back.
func (a *Agent) Inject(r api.Report) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r.Event == api.EventExited {
		delete(a.exited, r.Task)
	}
	a.report(r)
}

// Exit reports that a running attempt ended, or one whose exit HoldExit
// held back.
func (a *Agent) Exit(id agent.TaskID, outcome agent.Outcome, code int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.exitLocked(id, outcome, code)
}

// HoldExit has a running attempt exit with its exit report held back, as
// agentd holds it until the attempt's output is delivered: the syncs and
// registrations list it exited (api.Sync.Exited, api.Register.Exited),
// not running, until Exit reports its end (or Inject an exit report of
// the test's). It reports whether the attempt ran.
func (a *Agent) HoldExit(id agent.TaskID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.running[id]; !ok {
		return false
	}
	delete(a.running, id)
	if a.exited == nil {
		a.exited = map[agent.TaskID]bool{}
	}
	a.exited[id] = true
	return true
}

// Running lists the attempts the agent runs, sorted.
func (a *Agent) Running() []agent.TaskID {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.runningLocked()
}

// Started lists every start command the agent got, in order.
func (a *Agent) Started() []agent.TaskSpec {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.started)
}

// Commands lists every command the agent got, in order.
func (a *Agent) Commands() []api.Command {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.commands)
}

func (a *Agent) runningLocked() []agent.TaskID {
	ids := make([]agent.TaskID, 0, len(a.running))
	for id := range a.running {
		ids = append(ids, id)
	}
	sortIDs(ids)
	return ids
}

// sortIDs sorts attempts by job number, task and attempt.
func sortIDs(ids []agent.TaskID) {
	slices.SortFunc(ids, func(x, y agent.TaskID) int {
		if x.JobID != y.JobID {
			xi, _ := strconv.Atoi(x.JobID)
			yi, _ := strconv.Atoi(y.JobID)
			return xi - yi
		}
		if x.TaskIndex != y.TaskIndex {
			return x.TaskIndex - y.TaskIndex
		}
		return x.Attempt - y.Attempt
	})
}

func (a *Agent) report(r api.Report) {
	a.seq++
	r.Seq = a.seq
	if r.At.IsZero() {
		r.At = time.Now().UTC()
	}
	a.pending = append(a.pending, r)
	if a.reported != nil {
		select {
		case a.reported <- struct{}{}:
		default:
		}
	}
}

// exitLocked reports the end of an attempt that runs, or whose exit
// HoldExit held back.
func (a *Agent) exitLocked(id agent.TaskID, outcome agent.Outcome, code int) bool {
	_, running := a.running[id]
	_, held := a.exited[id]
	if !running && !held {
		return false
	}
	delete(a.running, id)
	delete(a.exited, id)
	c := code
	a.report(api.Report{Task: id, Event: api.EventExited, Outcome: string(outcome), ExitCode: &c, Checkpoint: a.Checkpoint})
	return true
}

// Release starts a start that Exit.Deferred held back: it runs, and is
// reported running. It reports whether one was held.
func (a *Agent) Release(id agent.TaskID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	spec, ok := a.deferred[id]
	if !ok {
		return false
	}
	delete(a.deferred, id)
	a.running[id] = spec
	a.report(api.Report{Task: id, Event: api.EventRunning})
	return true
}

// handle carries out commands as a real agent would, reporting at once.
func (a *Agent) handle(cmds []api.Command) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running == nil {
		a.running = map[agent.TaskID]agent.TaskSpec{}
	}
	for _, c := range cmds {
		a.commands = append(a.commands, c)
		switch c.Type {
		case api.CommandStart:
			if c.Start == nil {
				continue
			}
			id := c.Start.ID()
			if _, dup := a.running[id]; dup || a.exited[id] {
				continue // as agentd, which keeps an exited attempt until its report goes
			}
			var e *Exit
			if a.OnStart != nil {
				e = a.OnStart(*c.Start)
			}
			a.started = append(a.started, *c.Start)
			if e != nil && e.Silent {
				continue
			}
			if e != nil && e.Deferred {
				if a.deferred == nil {
					a.deferred = map[agent.TaskID]agent.TaskSpec{}
				}
				a.deferred[id] = *c.Start
				continue
			}
			if e != nil && e.StartError != "" {
				a.report(api.Report{Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeFailed), Error: e.StartError})
				continue
			}
			a.running[id] = *c.Start
			a.report(api.Report{Task: id, Event: api.EventRunning})
			if e != nil {
				if e.After <= 0 {
					a.exitLocked(id, e.Outcome, e.ExitCode)
				} else {
					e := *e
					a.timers = append(a.timers, time.AfterFunc(e.After, func() { a.Exit(id, e.Outcome, e.ExitCode) }))
				}
			}
		case api.CommandPreempt, api.CommandKill:
			if _, ok := a.deferred[c.Task]; ok {
				// As agentd: stopped before it started, reported killed.
				delete(a.deferred, c.Task)
				a.report(api.Report{Task: c.Task, Event: api.EventExited, Outcome: string(agent.OutcomeKilled)})
				continue
			}
			a.stopLocked(c)
		}
	}
}

// stopLocked carries out a stop of an attempt that started.
func (a *Agent) stopLocked(c api.Command) {
	switch c.Type {
	case api.CommandPreempt:
		if !a.HoldPreempt {
			a.exitLocked(c.Task, agent.OutcomePreempted, 0)
		}
	case api.CommandKill:
		if !a.HoldKill || c.GraceS == 0 {
			a.exitLocked(c.Task, agent.OutcomeKilled, -1)
		}
	}
}

func (a *Agent) post(ctx context.Context, path string, body, reply any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.Master+api.Version+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	a.mu.Lock()
	tok := a.cred
	if tok == "" {
		tok = a.Token
	}
	a.mu.Unlock()
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	client := a.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusNotFound && path != "/agents/register" {
		return ErrNotRegistered
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", path, resp.Status, bytes.TrimSpace(raw))
	}
	return json.Unmarshal(raw, reply)
}
