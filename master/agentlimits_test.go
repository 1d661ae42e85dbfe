package master

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/storetest"
)

// TestTimeLimitsSentToAgents: every sync reply tells the agent when its
// attempts reach their time limits: the attempt's start plus the limit,
// with the time left; again, changed, after a job update lowers the
// limit; while the master kills the attempt for it too (B20:
// timeLimitsFor); no more once the attempt has ended.
func TestTimeLimitsSentToAgents(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 1)
	id := h.submit(jobSpec("train", 1, `, "time_limit": 3600`))
	h.step()
	h.sync(a, a)
	started := h.clock.Now()
	h.clock.Advance(10 * time.Minute)
	steps := []struct {
		name      string
		do        func(t *testing.T)
		wantLimit time.Duration // 0: none listed
	}{
		{"running", func(*testing.T) {}, time.Hour},
		{"its limit lowered", func(t *testing.T) {
			if code := h.do("PATCH", fmt.Sprintf("/api/v1/jobs/%d", id), map[string]any{"time_limit_s": 1200}, nil); code != 200 {
				t.Fatalf("PATCH: %d", code)
			}
		}, 20 * time.Minute},
		{"killed at it: its kill's reply lists it", func(*testing.T) {
			h.clock.Advance(10 * time.Minute)
			checkLimits(h)
		}, 20 * time.Minute},
		{"ended", func(*testing.T) {}, 0},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.do(t)
			reply, err := a.Sync(h.ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if s.wantLimit == 0 {
				if len(reply.TimeLimits) != 0 {
					t.Fatalf("time limits %+v, want none", reply.TimeLimits)
				}
				return
			}
			want := api.TimeLimit{Task: tid(id, 0, 1), LimitS: int64(s.wantLimit / time.Second), Deadline: started.Add(s.wantLimit).UTC(),
				LeftMS: started.Add(s.wantLimit).Sub(h.clock.Now()).Milliseconds()}
			if len(reply.TimeLimits) != 1 || reply.TimeLimits[0] != want {
				t.Fatalf("time limits %+v, want [%+v]", reply.TimeLimits, want)
			}
		})
	}
}

// TestTimeLimitInStoreOutage: a job's 1-minute limit falls 10 s into a
// store outage of 35 s. Its agent, which applied the limit at it (5 s
// late, its slack), reports the exit once the store is back: the task
// ends killed by its time limit, as the master's own kill would end it,
// its reason saying that the agent applied it while the store was
// unavailable, and its usage charged up to the exit, not to the store's
// return. If the master's own late kill comes first, it says how late
// and why, and the end still says the agent applied it; an agent that
// knows no time limits (older) leaves the late kill alone, which says
// how late and why.
func TestTimeLimitInStoreOutage(t *testing.T) {
	cases := []struct {
		name          string
		agentStops    bool // the agent applied the limit and reports it
		masterFirst   bool // the master's tick kills before the agent's report
		wantKill, end string
	}{
		{"the agent's report first", true, false, "agent", "agent"},
		{"the master's late kill first", true, true, "late", "agent"},
		{"an agent without the backstop", false, true, "late", "late"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var flaky *flakyStore
			h := newHarness(t, func(o *Options) { flaky = &flakyStore{&storetest.Flaky{Store: o.Store}}; o.Store = flaky })
			h.m.health.minGap = 0
			a := h.agent("n1", 1)
			id := h.submit(jobSpec("train", 1, `, "time_limit": 60`))
			h.step()
			h.sync(a, a)
			started := h.clock.Now()
			task := tid(id, 0, 1)

			h.clock.Advance(50 * time.Second)
			flaky.Down.Store(true)
			h.m.Tick(h.ctx)
			from := h.clock.Now()
			h.clock.Advance(15 * time.Second)
			h.m.Tick(h.ctx) // past the limit: nothing can be stored
			exited := started.Add(65 * time.Second)
			if c.agentStops {
				a.Forget(task)
				a.Inject(api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomeKilled), At: exited,
					Error: "stopped by the agent at its time limit of 1m", StoppedAtLimit: true})
			}
			h.clock.Advance(20 * time.Second)
			flaky.Down.Store(false)
			until := h.clock.Now()
			if c.masterFirst {
				h.m.Tick(h.ctx)
			}
			h.sync(a, a)

			span := from.UTC().Format("15:04:05") + "–" + until.UTC().Format("15:04:05 UTC")
			words := map[string]string{
				"agent": "time limit of 1m reached; applied at the limit by node n1's agent: the store was unavailable " + span,
				"late":  "time limit of 1m reached; killed 25s after its limit: the store was unavailable " + span,
			}
			j := h.job(id)
			if j.State != "killed" || len(j.TaskList) != 1 || len(j.TaskList[0].Attempts) != 1 {
				t.Fatalf("job %s, want killed on its one attempt: %+v", j.State, j.TaskList)
			}
			tk, att := j.TaskList[0], j.TaskList[0].Attempts[0]
			if tk.Reason != words[c.end] || att.EndState != "killed" {
				t.Errorf("task reason %q, attempt %s; want %q, killed", tk.Reason, att.EndState, words[c.end])
			}
			if c.agentStops && (att.ExitedAt == nil || !att.ExitedAt.Equal(exited)) {
				t.Errorf("exited at %v, want %v: its usage is charged to its exit", att.ExitedAt, exited)
			}
			want := []string{"0 running → killing: time_limit", "0 killing → killed: time_limit"}
			if got := h.causesOf(id); !slices.Equal(got, want) {
				t.Errorf("causes %q, want %q", got, want)
			}
			evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: id, To: string(store.TaskKilling)})
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 1 || evs[0].Reason != words[c.wantKill] {
				t.Errorf("kill events %+v, want one with %q", evs, words[c.wantKill])
			}
			if !strings.Contains(j.Reason, "reached the time limit of 1m") {
				t.Errorf("job reason %q, want the time limit's", j.Reason)
			}
		})
	}
}

// TestDeadline: the deadline the agents are told is the master's own:
// the attempt's start plus the limit; for the restart a move or resize
// reserved, the start of the attempt it continues; its own start where
// that came after (killed as it runs again); none for a task stopping,
// or a job without a limit.
func TestDeadline(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 22, 1, 17, 0, time.UTC)
	limit := 12 * time.Minute
	cases := []struct {
		name      string
		state     store.TaskState
		limit     time.Duration
		started   time.Time
		continues time.Time // zero: not a move's restart
		want      time.Time // zero: none
	}{
		{"running", store.TaskRunning, limit, t0, time.Time{}, t0.Add(limit)},
		{"starting", store.TaskStarting, limit, t0, time.Time{}, t0.Add(limit)},
		{"resumed after a preemption: its own start", store.TaskRunning, limit, t0.Add(time.Hour), time.Time{}, t0.Add(time.Hour + limit)},
		{"a move's restart: the first's start", store.TaskStarting, limit, t0.Add(5 * time.Minute), t0, t0.Add(limit)},
		{"a move's restart past the limit: its own start", store.TaskStarting, limit, t0.Add(13 * time.Minute), t0, t0.Add(13 * time.Minute)},
		{"preempting", store.TaskPreempting, limit, t0, time.Time{}, time.Time{}},
		{"killing", store.TaskKilling, limit, t0, time.Time{}, time.Time{}},
		{"no limit", store.TaskRunning, 0, t0, time.Time{}, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			task := &mtask{job: &mjob{rec: store.Job{TimeLimit: c.limit}}, rec: store.Task{State: c.state},
				att: &mattempt{started: c.started, continues: c.continues}}
			got, ok := deadline(task)
			if ok != !c.want.IsZero() || !got.Equal(c.want) {
				t.Fatalf("deadline %v (%v), want %v", got, ok, c.want)
			}
		})
	}
}

// TestTimeLimitWhileMasterDown (trial 2026-11-29b B20): a job's
// 1-minute limit falls while the master is down (from 50 s to 85 s). Its
// agent applies the limit 5 s late (its slack) and reports the exit once
// the master is back: the end says that the agent applied it while the
// master was not running, whether the agent's report or the new master's
// own late kill comes first; an agent without the backstop leaves the
// late kill's words, which say how late and why.
func TestTimeLimitWhileMasterDown(t *testing.T) {
	cases := []struct {
		name          string
		agentStops    bool // the agent applied the limit and reports it
		masterFirst   bool // the new master's tick kills before the agent's report
		wantKill, end string
	}{
		{"the agent's report first", true, false, "agent", "agent"},
		{"the master's late kill first", true, true, "late", "agent"},
		{"an agent without the backstop", false, true, "late", "late"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.agent("n1", 1)
			a.HoldKill = true // an exit held back is reported once, not again for a kill
			id := h.submit(jobSpec("train", 1, `, "time_limit": 60`))
			h.step()
			h.sync(a, a)
			started := h.clock.Now()
			task := tid(id, 0, 1)

			h.clock.Advance(50 * time.Second) // the master goes down
			h.clock.Advance(15 * time.Second)
			exited := started.Add(65 * time.Second)
			if c.agentStops {
				a.HoldExit(task) // listed exited at its registration, its report to follow
			}
			h.clock.Advance(20 * time.Second)
			h.start()
			back := h.clock.Now()
			if c.masterFirst {
				h.m.Tick(h.ctx) // before the agent registers again
			}
			a.Master = h.srv.URL
			reg, err := a.Rejoin(h.ctx)
			if err != nil {
				t.Fatal(err)
			}
			// The registration's reply lists the limit of the attempt the
			// master kills for it too, so that the agent, which sends
			// stopped_at_limit only to a master that sent time limits
			// since it registered, says that it applied it.
			if len(reg.TimeLimits) != 1 || reg.TimeLimits[0].Task != task {
				t.Errorf("registration's time limits %+v, want the attempt's", reg.TimeLimits)
			}
			if c.agentStops {
				a.Inject(api.Report{Task: task, Event: api.EventExited, Outcome: string(agent.OutcomeKilled), At: exited,
					Error: "stopped by the agent at its time limit of 1m", StoppedAtLimit: true})
			}
			h.sync(a, a)
			if !c.agentStops {
				a.Exit(task, agent.OutcomeKilled, -1) // the master's kill, its grace over
			}
			h.sync(a, a)

			until := back.UTC().Format("15:04:05 UTC")
			words := map[string]string{
				"agent": "time limit of 1m reached; applied at the limit by node n1's agent: the master was not running until " + until,
				"late":  "time limit of 1m reached; killed 25s after its limit: the master was not running until " + until,
			}
			j := h.job(id)
			if j.State != "killed" || len(j.TaskList) != 1 || len(j.TaskList[0].Attempts) != 1 {
				t.Fatalf("job %s, want killed on its one attempt: %+v", j.State, j.TaskList)
			}
			tk, att := j.TaskList[0], j.TaskList[0].Attempts[0]
			if tk.Reason != words[c.end] || att.EndState != "killed" {
				t.Errorf("task reason %q, attempt %s; want %q, killed", tk.Reason, att.EndState, words[c.end])
			}
			if c.agentStops && (att.ExitedAt == nil || !att.ExitedAt.Equal(exited)) {
				t.Errorf("exited at %v, want %v: its usage is charged to its exit", att.ExitedAt, exited)
			}
			evs, err := h.st.Events(h.ctx, store.EventFilter{JobID: id, To: string(store.TaskKilling)})
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 1 || evs[0].Reason != words[c.wantKill] {
				t.Errorf("kill events %+v, want one with %q", evs, words[c.wantKill])
			}
		})
	}
}
