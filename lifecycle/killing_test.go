package lifecycle_test

import (
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestSlowKill: a kill leaves the attempt killing, its slots held,
// charged and shown preempting in the snapshot, until EventKillEnded for
// its version, as the master holds a killing task's GPUs until its agent
// reports the end; the Cluster never ends a kill itself, whatever the
// driver's KillAfter (the simulator's driver sends the end at once for
// 0). A user's kill ends the job killed at once, but it stays on the
// roster, with nothing waiting, until the end, when the driver hears of
// its end (Over); a time limit's leaves the job running until the end,
// which ends it as its tasks put it. A stale end changes nothing.
func TestSlowKill(t *testing.T) {
	decay := sched.Decay{Period: 300, PerPeriod: 0.5}
	for _, c := range []struct {
		name      string
		after     int64 // the driver's KillAfter, and when it sends the end after the kill
		limit     int64
		userKill  bool
		jobDuring lifecycle.JobState // while killing
	}{
		{"a user's kill", 5, 0, true, lifecycle.JobKilled},
		// Its end was due at its time limit (103), after the kill at 100
		// and before the kill's end at 105: killed, not timed out.
		{"a user's kill before a time limit", 5, 103, true, lifecycle.JobKilled},
		{"a time limit", 5, 100, false, lifecycle.JobRunning},
		{"a user's kill ended at once", 0, 0, true, lifecycle.JobKilled},
		{"a time limit ended at once", 0, 100, false, lifecycle.JobRunning},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cl lifecycle.Cluster
			cl.Snap.Nodes = []sched.Node{{Slots: 4}}
			cl.Snap.Accounts = []sched.Account{{Name: "a", Parent: -1, Shares: 1}}
			cl.Ledgers.ChargeAccounts(decay, 4, cl.Snap.Accounts, 0)
			ji := cl.Observe(0, lifecycle.Event{Kind: lifecycle.EventSubmit, Submission: lifecycle.Submission{Tasks: 2,
				Fresh: 1000, Shape: lifecycle.Shape{Limit: c.limit}, Project: -1, Account: 0}, Entry: &sched.Job{Slots: 2}}).Job
			ti := cl.Launch(ji, []sched.NodeSlots{{Node: 0, Slots: 2}}, false, 0)
			cl.Tasks.At(ti).KillAfter = c.after
			var o lifecycle.Outcome
			if c.userKill {
				o = cl.Observe(100, lifecycle.Event{Kind: lifecycle.EventKill, Job: ji})
			} else {
				o = cl.Observe(100, lifecycle.Event{Kind: lifecycle.EventEnded, Task: ti, Ver: cl.Tasks.At(ti).Ver})
			}
			if !o.Applied {
				t.Fatal("the kill did not apply")
			}
			want := lifecycle.KillingTask{Task: ti, From: lifecycle.TaskRunning}
			if len(o.Killing) != 1 || o.Killing[0] != want || o.Slots != 0 || o.Over != c.userKill {
				t.Fatalf("the kill: killing %v, %d freed, over %t; want [%v], 0, %t", o.Killing, o.Slots, o.Over, want, c.userKill)
			}
			endAt := 100 + c.after
			ver := cl.Tasks.At(ti).Ver
			var snap sched.Snapshot
			cl.Snapshot(&snap, 100)
			if st := cl.Jobs[ji].State; st != c.jobDuring || cl.Tasks.At(ti).State != lifecycle.TaskKilling || cl.InUse() != 2 {
				t.Errorf("while killing: job %s, task %s, %d in use; want %s, killing, 2", st, cl.Tasks.At(ti).State, cl.InUse(), c.jobDuring)
			}
			if len(snap.Jobs) != 1 || snap.Jobs[0].Waiting != 0 && c.userKill || len(snap.Allocs) != 1 || !snap.Allocs[0].Preempting {
				t.Errorf("while killing the snapshot has jobs %+v, allocations %+v; want the job, nothing waiting after a user's kill, its allocation preempting",
					snap.Jobs, snap.Allocs)
			}
			if stale := cl.Observe(endAt, lifecycle.Event{Kind: lifecycle.EventKillEnded, Task: ti, Ver: ver - 1}); stale.Applied {
				t.Error("a stale kill's end applied")
			}
			cl.Ledgers.Advance(cl.Snap.Accounts, endAt)
			if want := charged(decay, 2, 0, endAt, endAt); !near(cl.Snap.Accounts[0].Usage, want) {
				t.Errorf("usage while killing %g, want %g (charged until now)", cl.Snap.Accounts[0].Usage, want)
			}
			end := cl.Observe(endAt, lifecycle.Event{Kind: lifecycle.EventKillEnded, Task: ti, Ver: ver})
			if !end.Applied || end.Slots != 2 || end.Attempt != lifecycle.AttemptKilled || end.TimedOut == c.userKill || cl.InUse() != 0 {
				t.Fatalf("the kill's end: %+v, %d in use; want applied, 2 freed, killed, timed out %t, 0 in use", end, cl.InUse(), !c.userKill)
			}
			if c.userKill && (!end.Over || end.State != lifecycle.JobKilled) {
				t.Errorf("the end of a killed job's last killing task: over %t in %s, want its end, killed", end.Over, end.State)
			}
			if st := cl.Jobs[ji].State; !c.userKill && (end.Over || st != lifecycle.JobQueued) {
				t.Errorf("after a time limit's kill of one of 2 tasks: over %t, job %s; want it queued, its other task waiting", end.Over, st)
			}
			cl.Snapshot(&snap, endAt+1)
			if wantJobs := map[bool]int{true: 0, false: 1}[c.userKill]; len(snap.Jobs) != wantJobs || len(snap.Allocs) != 0 {
				t.Errorf("after the end the snapshot has %d jobs, %d allocations; want %d, 0", len(snap.Jobs), len(snap.Allocs), wantJobs)
			}
			cl.Ledgers.Advance(cl.Snap.Accounts, 700)
			if want := charged(decay, 2, 0, endAt, 700); !near(cl.Snap.Accounts[0].Usage, want) {
				t.Errorf("later usage %g, want %g: charged until the kill's end", cl.Snap.Accounts[0].Usage, want)
			}
		})
	}
}

// TestSlowLimitKillThenUserKill: a user's kill of a job whose task its
// time limit is killing already (slowly, KillAfter) leaves that kill as
// it is, as the master's killTask leaves a killing task: the task ends
// timed out at the kill's end, not killed, while the job, killed by the
// user, ends killed then.
func TestSlowLimitKillThenUserKill(t *testing.T) {
	var cl lifecycle.Cluster
	cl.Snap.Nodes = []sched.Node{{Slots: 4}}
	ji := cl.Observe(0, lifecycle.Event{Kind: lifecycle.EventSubmit, Submission: lifecycle.Submission{Tasks: 1,
		Fresh: 1000, Shape: lifecycle.Shape{Limit: 100}, Project: -1, Account: -1}, Entry: &sched.Job{Slots: 2}}).Job
	ti := cl.Launch(ji, []sched.NodeSlots{{Node: 0, Slots: 2}}, false, 0)
	cl.Tasks.At(ti).KillAfter = 5
	if o := cl.Observe(100, lifecycle.Event{Kind: lifecycle.EventEnded, Task: ti, Ver: cl.Tasks.At(ti).Ver}); len(o.Killing) != 1 {
		t.Fatalf("the time limit: killing %v, want the task", o.Killing)
	}
	ver := cl.Tasks.At(ti).Ver
	cl.Observe(102, lifecycle.Event{Kind: lifecycle.EventKill, Job: ji})
	if st := cl.Jobs[ji].State; st != lifecycle.JobKilled || cl.Tasks.At(ti).Ver != ver {
		t.Fatalf("after the user's kill: job %s, task version %d; want killed, %d (the limit's kill goes on)", st, cl.Tasks.At(ti).Ver, ver)
	}
	end := cl.Observe(105, lifecycle.Event{Kind: lifecycle.EventKillEnded, Task: ti, Ver: ver})
	if !end.Applied || !end.TimedOut || end.Attempt != lifecycle.AttemptKilled || !end.Over || end.State != lifecycle.JobKilled {
		t.Errorf("the kill's end: %+v; want applied, timed out, attempt killed, the job over, killed", end)
	}
}
