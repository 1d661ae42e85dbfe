package agentd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// limitAgent is an agent with no loop running, for the backstop's rules:
// only its lock, its broadcast and its limits are used.
func limitAgent() *Agent {
	return &Agent{changed: make(chan struct{}), tasks: map[agent.TaskID]*attempt{}}
}

// limitAttempt is attempt id, running, with a kill_grace of 30 s.
func limitAttempt(id agent.TaskID) *attempt {
	grace := int64(30)
	return &attempt{spec: agent.TaskSpec{JobID: id.JobID, TaskIndex: id.TaskIndex, Attempt: id.Attempt, KillGraceS: &grace}}
}

// TestLimitBackstopDue: the backstop kills an attempt only once its
// deadline (the reply's arrival plus the time it had left) and the slack
// have passed, and not one that the master, the fence or the agent
// stopped already, nor one whose limit it never heard (an older master,
// or the limit of another attempt of the task).
func TestLimitBackstopDue(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 22, 1, 17, 0, time.UTC)
	id := agent.TaskID{JobID: "4", TaskIndex: 0, Attempt: 1}
	limit := 12 * time.Minute
	deadline := t0.Add(limit)
	limitOf := func(id agent.TaskID, left time.Duration) []api.TimeLimit {
		return []api.TimeLimit{{Task: id, LimitS: int64(limit / time.Second), Deadline: t0.Add(left), LeftMS: left.Milliseconds()}}
	}
	cases := []struct {
		name     string
		limits   []api.TimeLimit // heard at t0
		att      func(*attempt)
		now      time.Time
		wantDue  bool
		wantNext time.Time // zero: none
	}{
		{"before its deadline", limitOf(id, limit), nil, deadline.Add(-time.Second), false, deadline.Add(limitSlack)},
		{"past its deadline, within the slack", limitOf(id, limit), nil, deadline.Add(limitSlack - time.Millisecond), false, deadline.Add(limitSlack)},
		{"past its deadline and the slack", limitOf(id, limit), nil, deadline.Add(limitSlack), true, time.Time{}},
		{"past its deadline at the reply", limitOf(id, -time.Minute), nil, t0.Add(limitSlack), true, time.Time{}},
		{"the master killed it first", limitOf(id, limit), func(a *attempt) { a.stopped = api.CommandKill }, deadline.Add(time.Hour), false, time.Time{}},
		{"the master preempted it first", limitOf(id, limit), func(a *attempt) { a.stopped = api.CommandPreempt }, deadline.Add(time.Hour), false, time.Time{}},
		{"the fence stopped it", limitOf(id, limit), func(a *attempt) { a.fenced = "stopped by the agent's fence" }, deadline.Add(time.Hour), false, time.Time{}},
		{"it exited", limitOf(id, limit), func(a *attempt) { a.exited = true }, deadline.Add(time.Hour), false, time.Time{}},
		{"no time limits (an older master)", nil, nil, deadline.Add(time.Hour), false, time.Time{}},
		{"only the next attempt's limit", limitOf(agent.TaskID{JobID: "4", TaskIndex: 0, Attempt: 2}, limit), nil, deadline.Add(time.Hour), false, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := limitAgent()
			att := limitAttempt(id)
			if c.att != nil {
				c.att(att)
			}
			a.tasks[id] = att
			a.limiter().heardLimitsLocked(t0, c.limits, true)
			due, next := a.limits.dueAt(c.now, a.tasks, false)
			if got := len(due) == 1; got != c.wantDue {
				t.Fatalf("due %v, want %v", got, c.wantDue)
			}
			if !next.Equal(c.wantNext) {
				t.Errorf("next %v, want %v", next, c.wantNext)
			}
			if !c.wantDue {
				return
			}
			if due[0].grace != 30*time.Second {
				t.Errorf("grace %v, want the kill_grace of 30s", due[0].grace)
			}
			if want := "stopped by the agent at its time limit of 12m"; !strings.Contains(att.limited, want) || att.stopped != api.CommandKill {
				t.Errorf("limited %q, stopped %q; want %q and kill", att.limited, att.stopped, want)
			}
			if again, _ := a.limits.dueAt(c.now, a.tasks, false); len(again) != 0 {
				t.Error("the attempt is stopped a second time")
			}
		})
	}
	t.Run("while the agent stops", func(t *testing.T) {
		a := limitAgent()
		a.tasks[id] = limitAttempt(id)
		a.limiter().heardLimitsLocked(t0, limitOf(id, 0), true)
		if due, next := a.limits.dueAt(t0.Add(time.Hour), a.tasks, true); len(due) != 0 || !next.IsZero() {
			t.Fatalf("due %d, next %v while the agent stops its tasks itself; want none", len(due), next)
		}
	})
}

// TestLimitBackstopHeard: the deadline is the latest reply's, so that a
// limit a job update changed, or an attempt a move restarted (whose
// deadline the master counts from the attempt it continues), takes the
// new one; a reply older than the one heard changes nothing; an attempt
// the replies no longer list (the master stopped it, or removed its
// limit) has none.
func TestLimitBackstopHeard(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 22, 1, 17, 0, time.UTC)
	id := agent.TaskID{JobID: "4", TaskIndex: 0, Attempt: 1}
	tl := func(left time.Duration) []api.TimeLimit {
		return []api.TimeLimit{{Task: id, LimitS: 720, Deadline: t0.Add(left), LeftMS: left.Milliseconds()}}
	}
	type reply struct {
		at     time.Time
		limits []api.TimeLimit
		reg    bool
	}
	cases := []struct {
		name    string
		replies []reply
		want    time.Time // the deadline by the agent's clock; zero: none
	}{
		{"one reply", []reply{{t0, tl(time.Minute), true}}, t0.Add(time.Minute)},
		{"a later reply raises it", []reply{{t0, tl(time.Minute), true}, {t0.Add(time.Second), tl(time.Hour), false}}, t0.Add(time.Second + time.Hour)},
		{"a later reply lowers it", []reply{{t0, tl(time.Hour), true}, {t0.Add(time.Second), tl(time.Minute), false}}, t0.Add(time.Second + time.Minute)},
		{"an older reply after a newer one", []reply{{t0.Add(time.Second), tl(time.Minute), true}, {t0, tl(time.Hour), false}}, t0.Add(time.Second + time.Minute)},
		{"a later reply without it", []reply{{t0, tl(time.Minute), true}, {t0.Add(time.Second), nil, false}}, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := limitAgent()
			for _, r := range c.replies {
				a.limiter().heardLimitsLocked(r.at, r.limits, r.reg)
			}
			d, ok := a.limits.Of(id)
			if ok != !c.want.IsZero() || ok && !d.At.Equal(c.want) {
				t.Fatalf("deadline %v (known %v), want %v", d.At, ok, c.want)
			}
		})
	}
}

// TestLimitReportForMaster: an exit report keeps StoppedAtLimit only for
// a master that sent time limits since the agent registered; an older
// master, which would refuse the field, gets the words in Error alone.
func TestLimitReportForMaster(t *testing.T) {
	id := agent.TaskID{JobID: "4", TaskIndex: 0, Attempt: 1}
	rep := api.Report{Seq: 3, Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeKilled),
		Error: "stopped by the agent at its time limit of 12m", StoppedAtLimit: true}
	cases := []struct {
		name   string
		limits []api.TimeLimit // of the registration reply
		sync   []api.TimeLimit // of a sync reply after it
		want   bool
	}{
		{"a master that sends time limits", []api.TimeLimit{{Task: id, LeftMS: 1}}, nil, true},
		{"one that sent them in a sync reply", nil, []api.TimeLimit{{Task: id, LeftMS: 1}}, true},
		{"a master that sends none (older)", nil, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := limitAgent()
			now := time.Now()
			a.limiter().heardLimitsLocked(now, c.limits, true)
			a.limiter().heardLimitsLocked(now.Add(time.Second), c.sync, false)
			got := a.limiter().forMasterLocked([]api.Report{rep})
			if got[0].StoppedAtLimit != c.want || got[0].Error != rep.Error {
				t.Fatalf("sent %+v, want stopped_at_limit %v and the same error", got[0], c.want)
			}
		})
	}
}

// TestLimitBackstopInStoreOutage: an attempt whose time limit falls while
// the master's store is unavailable (its syncs answered 503) is killed
// by the agent as the master's kill would have: SIGTERM, which it
// traps, within the kill grace; its exit report, delivered once the
// store is back, says killed, stopped at its limit by the agent. One
// that the master killed before the deadline's slack ran out is the
// master's kill, unmarked.
func TestLimitBackstopInStoreOutage(t *testing.T) {
	slack := limitSlack
	limitSlack = 300 * time.Millisecond
	t.Cleanup(func() { limitSlack = slack })
	cases := []struct {
		name        string
		masterKills bool
		want        bool // StoppedAtLimit
	}{
		{"the store is unavailable at the limit", false, true},
		{"the master kills first", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			dir := t.TempDir()
			startAgent(t, testConfig(t, fm, dir))
			s := spec(0, 1, "")
			grace := int64(5)
			s.KillGraceS = &grace
			pidFile, termed := filepath.Join(dir, "task.pid"), filepath.Join(dir, "termed")
			s.Entrypoint = "trap 'echo term > " + termed + "; exit 0' TERM; echo $$ > " + pidFile +
				"; while [ ! -f " + filepath.Join(dir, "release") + " ]; do sleep 0.05; done"
			fm.set(func(fm *fakeMaster) { fm.limits = map[agent.TaskID]time.Time{s.ID(): time.Now().Add(time.Second)} })
			fm.send(startCmd(s))
			pid := readPid(t, pidFile)
			fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(s.ID())) == 1 })
			if c.masterKills {
				fm.send(stopCmd(api.CommandKill, s.ID(), grace))
			} else {
				fm.set(func(fm *fakeMaster) { fm.storeOut = true })
			}
			groupGone(t, pid)
			if _, err := os.Stat(termed); err != nil {
				t.Errorf("the task got no SIGTERM within its kill grace: %v", err)
			}
			fm.set(func(fm *fakeMaster) { fm.storeOut = false })
			fm.waitFor("the exit report", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
			var rep api.Report
			fm.locked(func(fm *fakeMaster) { rep, _ = fm.exitOf(s.ID()) })
			limited := strings.Contains(rep.Error, "stopped by the agent at its time limit of 1m")
			if rep.Outcome != string(agent.OutcomeKilled) || rep.StoppedAtLimit != c.want || limited != c.want {
				t.Fatalf("exit report %+v; want killed, stopped_at_limit %v", rep, c.want)
			}
		})
	}
}
