package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/master/mastertest"
)

// benchJob is what the harness saw of one job.
type benchJob struct {
	sent, started, ended time.Time
}

// benchRun is one run of allot bench live: the agents' and the
// submitter's observations, guarded by mu.
type benchRun struct {
	f benchFlags
	t *benchTarget

	mu        sync.Mutex
	jobs      map[int64]*benchJob
	submitLat []time.Duration // every accepted submission, send to reply
	busyLat   []time.Duration // those sent while a task ran
	rejected  int
	firstErr  error
	dupStarts int
	running   int // started and not yet acknowledged as ended
	// ends holds, in start order, when each fake task still running
	// ends: the task time after its start. peak counts from it, not from
	// running, because an exit's acknowledgement may reach the harness
	// after the start that the master sent to the GPU it freed, and a
	// peak above the GPUs would be the harness's artefact.
	ends       []time.Time
	peak       int
	starts     int
	exits      int
	firstStart time.Time
	lastEnd    time.Time
	// ended is signalled on every exit acknowledged by the master.
	ended chan struct{}
}

// runBench starts the agents, submits the jobs, waits for them to end and
// measures; the report comes back even when the run fails half way, with
// what was measured.
func runBench(ctx context.Context, t *benchTarget, f benchFlags) (*benchReport, error) {
	r := &benchRun{f: f, t: t, jobs: map[int64]*benchJob{}, ended: make(chan struct{}, 1)}
	cpu0, _ := procCPU(t.pid)
	began := time.Now()
	agentCtx, stopAgents := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	defer func() { stopAgents(); wg.Wait() }()
	prefix := fmt.Sprintf("bench-%s-", strconv.FormatInt(began.Unix()%(36*36*36*36), 36))
	r.startAgents(agentCtx, &wg, prefix)
	cl, err := client.New(t.url, &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: f.submitters}})
	if err != nil {
		return nil, err
	}
	cl = cl.WithToken(t.token)
	if err := waitAgents(ctx, cl, prefix, f.agents); err != nil {
		return nil, err
	}
	rep := &benchReport{Backend: t.backend, Agents: f.agents, GPUs: f.gpus, Slots: f.slots, Jobs: f.jobs,
		Rate: f.rate, TaskTime: f.taskTime.String(), Submitters: f.submitters}
	rep.AgentsUpS = time.Since(began).Seconds()
	subStart := time.Now()
	stopRSS, rssOut := make(chan struct{}), make(chan []rssSample, 1)
	go sampleRSS(t.pid, subStart, r.endedCount, stopRSS, rssOut)
	r.submit(ctx, cl)
	rep.SubmitS = time.Since(subStart).Seconds()
	waitErr := r.waitEnded(ctx)
	rep.WallS = time.Since(subStart).Seconds()
	r.fill(rep)
	if cpu1, ok := procCPU(t.pid); ok {
		rep.MasterCPUS = floatPtr(cpu1 - cpu0)
	}
	if peak, ok := procPeakRSS(t.pid); ok {
		rep.MasterPeakRSSMiB = floatPtr(float64(peak) / (1 << 20))
	}
	close(stopRSS)
	rep.MasterRSS = <-rssOut
	if n := len(rep.MasterRSS); n > 0 {
		rep.MasterEndRSSMiB = floatPtr(rep.MasterRSS[n-1].MiB)
	}
	stopAgents()
	wg.Wait()
	vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if n, err := r.completedAtMaster(vctx, cl); err == nil {
		rep.CompletedAtMaster = n
	} else if waitErr == nil {
		waitErr = fmt.Errorf("count the completed jobs: %w", err)
	}
	if t.storeSize != nil {
		if n, err := t.storeSize(vctx); err == nil {
			rep.StoreBytes = n
		}
	}
	if r.firstErr != nil && waitErr == nil {
		waitErr = fmt.Errorf("%d submissions failed, the first: %w", r.rejected, r.firstErr)
	}
	return rep, waitErr
}

func floatPtr(v float64) *float64 { return &v }

// startAgents starts the simulated agents; each runs until ctx ends.
func (r *benchRun) startAgents(ctx context.Context, wg *sync.WaitGroup, prefix string) {
	// One transport for all: each agent holds a long poll and may send a
	// report beside it.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2*r.f.agents + 16}}
	for i := range r.f.agents {
		a := &mastertest.Agent{Master: r.t.url, Token: r.t.join, Name: fmt.Sprintf("%s%04d", prefix, i),
			Pool: r.f.pool, GPUs: r.f.gpus, WaitS: r.f.syncWait, Client: hc, ReportNow: true,
			OnStart: r.onStart, OnAck: r.onAck}
		wg.Add(1)
		go func() { defer wg.Done(); a.Run(ctx) }()
	}
}

// onStart records a start and has the fake task complete after the task
// time.
func (r *benchRun) onStart(s agent.TaskSpec) *mastertest.Exit {
	now := time.Now()
	id, _ := strconv.ParseInt(s.JobID, 10, 64)
	r.mu.Lock()
	j := r.job(id)
	if !j.started.IsZero() {
		r.dupStarts++
	} else {
		j.started = now
		r.starts++
	}
	if r.firstStart.IsZero() {
		r.firstStart = now
	}
	r.running++
	n := 0
	for n < len(r.ends) && !r.ends[n].After(now) {
		n++
	}
	r.ends = append(r.ends[n:], now.Add(r.f.taskTime))
	r.peak = max(r.peak, len(r.ends))
	r.mu.Unlock()
	return &mastertest.Exit{Outcome: agent.OutcomeCompleted, After: r.f.taskTime}
}

// onAck records the exits that the master has stored: a job has ended,
// for the harness, once its exit report is acknowledged.
func (r *benchRun) onAck(reports []api.Report) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rep := range reports {
		if rep.Event != api.EventExited {
			continue
		}
		id, _ := strconv.ParseInt(rep.Task.JobID, 10, 64)
		j := r.job(id)
		if j.ended.IsZero() {
			j.ended = now
			r.exits++
			r.running--
			r.lastEnd = now
		}
	}
	select {
	case r.ended <- struct{}{}:
	default:
	}
}

// endedCount is how many jobs have ended for the harness.
func (r *benchRun) endedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exits
}

// job returns the record of job id, made on first sight: a start may come
// before the submission's reply. Callers hold mu.
func (r *benchRun) job(id int64) *benchJob {
	j := r.jobs[id]
	if j == nil {
		j = &benchJob{}
		r.jobs[id] = j
	}
	return j
}

// waitAgents waits until every simulated agent's node is up.
func waitAgents(ctx context.Context, cl *client.Client, prefix string, n int) error {
	for {
		nodes, err := cl.Nodes(ctx)
		up := 0
		for _, nd := range nodes {
			if strings.HasPrefix(nd.Name, prefix) && nd.State == "up" {
				up++
			}
		}
		if err == nil && up == n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d agents to register (%d up): %w", n, up, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// submit sends the jobs from the submitters, paced at the rate.
func (r *benchRun) submit(ctx context.Context, cl *client.Client) {
	spec := json.RawMessage(fmt.Sprintf(`{"name": "bench", "entrypoint": "bench", "pool": %q, "resources": {"slots": %d}}`,
		r.f.pool, r.f.slots))
	turns := make(chan struct{})
	go func() {
		defer close(turns)
		start := time.Now()
		for i := range r.f.jobs {
			if r.f.rate > 0 {
				due := start.Add(time.Duration(float64(i) / r.f.rate * float64(time.Second)))
				if d := time.Until(due); d > 0 {
					time.Sleep(d)
				}
			}
			select {
			case turns <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range r.f.submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range turns {
				r.submitOne(ctx, cl, spec)
			}
		}()
	}
	wg.Wait()
}

func (r *benchRun) submitOne(ctx context.Context, cl *client.Client, spec json.RawMessage) {
	r.mu.Lock()
	busy := r.running > 0
	r.mu.Unlock()
	sent := time.Now()
	reply, err := cl.Submit(ctx, spec)
	lat := time.Since(sent)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.rejected++
		if r.firstErr == nil {
			r.firstErr = err
		}
		return
	}
	r.job(reply.ID).sent = sent
	r.submitLat = append(r.submitLat, lat)
	if busy {
		r.busyLat = append(r.busyLat, lat)
	}
}

// waitEnded waits until every accepted job has ended.
func (r *benchRun) waitEnded(ctx context.Context) error {
	for {
		r.mu.Lock()
		want, exits := len(r.submitLat), r.exits
		r.mu.Unlock()
		if exits >= want {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d jobs ended: %w", exits, want, ctx.Err())
		case <-r.ended:
		case <-time.After(time.Second):
		}
	}
}

// completedAtMaster counts the jobs of this run that the master says
// completed.
func (r *benchRun) completedAtMaster(ctx context.Context, cl *client.Client) (int, error) {
	n := 0
	err := cl.EachJobsPage(ctx, client.JobFilter{State: "completed"}, 1000, func(jobs []api.Job) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, j := range jobs {
			if b := r.jobs[j.ID]; b != nil && !b.sent.IsZero() {
				n++
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// fill puts the run's observations into the report.
func (r *benchRun) fill(rep *benchReport) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep.Accepted, rep.Rejected = len(r.submitLat), r.rejected
	rep.Started, rep.Exited, rep.DupStarts, rep.PeakRunning = r.starts, r.exits, r.dupStarts, r.peak
	if rep.SubmitS > 0 {
		rep.SubmitPerS = float64(rep.Accepted) / rep.SubmitS
	}
	rep.SubmitLatency = percentiles(r.submitLat)
	rep.SubmitBusyLatency = percentiles(r.busyLat)
	var toStart []time.Duration
	for _, j := range r.jobs {
		if !j.sent.IsZero() && !j.started.IsZero() {
			toStart = append(toStart, j.started.Sub(j.sent))
		}
	}
	rep.StartLatency = percentiles(toStart)
	if d := r.lastEnd.Sub(r.firstStart).Seconds(); d > 0 {
		rep.DrainS = d
		rep.DrainPerS = float64(r.starts+r.exits) / d
	}
}

// errIncomplete is returned by check when the report's counts disagree.
var errIncomplete = errors.New("the run is incomplete")
