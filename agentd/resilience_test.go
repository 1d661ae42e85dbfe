package agentd

import (
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

func TestReportsResentUntilAcked(t *testing.T) {
	cases := []struct {
		name   string
		inject func(fm *fakeMaster)
		resent bool // some report must have arrived more than once
	}{
		{"syncs fail", func(fm *fakeMaster) { fm.failSyncs = 4 }, false},
		{"acks withheld", func(fm *fakeMaster) { fm.withholdAck = 6 }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			startAgent(t, testConfig(t, fm, t.TempDir()))
			fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == 1 })
			fm.set(tc.inject)
			var ids []agent.TaskID
			var cmds []api.Command
			for i := range 3 {
				s := spec(i, 0, "exit "+strconv.Itoa(i))
				ids = append(ids, s.ID())
				cmds = append(cmds, startCmd(s))
			}
			fm.send(cmds...)
			fm.waitFor("every exit report", func(fm *fakeMaster) bool {
				for _, id := range ids {
					if _, ok := fm.exitOf(id); !ok {
						return false
					}
				}
				return fm.failSyncs == 0 && fm.withholdAck == 0
			})
			fm.locked(func(fm *fakeMaster) {
				if got, want := seqs(fm.reports), []int64{1, 2, 3, 4, 5, 6}; !reflect.DeepEqual(got, want) {
					t.Errorf("stored sequences = %v, want %v (each once, in order)", got, want)
				}
				twice := false
				for _, n := range fm.receipts {
					twice = twice || n > 1
				}
				if tc.resent && !twice {
					t.Errorf("a report arrived more than once: %v, want %v (receipts %v)", twice, tc.resent, fm.receipts)
				}
				for i, id := range ids {
					exit, _ := fm.exitOf(id)
					if exit.ExitCode == nil || *exit.ExitCode != i {
						t.Errorf("%s: exit code %v, want %d", id, exit.ExitCode, i)
					}
				}
			})
		})
	}
}

func TestReportsDroppedOnceAcked(t *testing.T) {
	fm := newFakeMaster(t)
	r := startAgent(t, testConfig(t, fm, t.TempDir()))
	s := spec(0, 0, "true")
	fm.send(startCmd(s))
	fm.waitFor("the exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	// The master stored both; the reply that acks them may still be on
	// its way, so wait for the agent's queue to empty.
	ctxWait(t, "the agent to drop acknowledged reports", func() bool {
		r.a.mu.Lock()
		defer r.a.mu.Unlock()
		return len(r.a.reports) == 0 && r.a.acked == 2
	})
}

func TestLogsResentAndDeliveredBeforeExit(t *testing.T) {
	fm := newFakeMaster(t)
	startAgent(t, testConfig(t, fm, t.TempDir()))
	fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == 1 })
	fm.set(func(fm *fakeMaster) { fm.failLogs = 5 })
	s := spec(0, 0, `i=1; while [ $i -le 50 ]; do echo "line $i"; i=$((i+1)); done`)
	fm.send(startCmd(s))
	fm.waitFor("the exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	fm.locked(func(fm *fakeMaster) {
		if fm.failLogs != 0 {
			t.Errorf("%d injected log failures unused", fm.failLogs)
		}
		if fm.exitLogs[s.ID()] != 50 {
			t.Errorf("%d lines stored when the exit report was, want 50", fm.exitLogs[s.ID()])
		}
		for i, l := range fm.logs {
			if l.Seq != int64(i+1) || l.Text != "line "+strconv.Itoa(i+1) {
				t.Fatalf("line %d = #%d %q, want #%d %q", i, l.Seq, l.Text, i+1, "line "+strconv.Itoa(i+1))
			}
		}
		if exit, _ := fm.exitOf(s.ID()); exit.Error != "" {
			t.Errorf("exit error = %q, want none", exit.Error)
		}
	})
}

func TestRejectedLogsAreDroppedAndCounted(t *testing.T) {
	fm := newFakeMaster(t)
	startAgent(t, testConfig(t, fm, t.TempDir()))
	fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == 1 })
	fm.set(func(fm *fakeMaster) { fm.failLogs, fm.logStatus = 1, http.StatusBadRequest })
	s := spec(0, 0, `echo one; echo two`)
	fm.send(startCmd(s))
	fm.waitFor("the exit", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	fm.locked(func(fm *fakeMaster) {
		exit, _ := fm.exitOf(s.ID())
		stored := len(fm.logText(s.ID()))
		dropped := 2 - stored
		if dropped == 0 {
			t.Fatalf("no line was dropped, though the master rejected a batch")
		}
		if want := strconv.Itoa(dropped) + " output lines were dropped"; !strings.Contains(exit.Error, want) {
			t.Errorf("exit error = %q, want it to say %q", exit.Error, want)
		}
		if exit.Outcome != string(agent.OutcomeCompleted) {
			t.Errorf("outcome = %q, want completed: dropped logs do not fail a task", exit.Outcome)
		}
	})
}

func TestReconnectKeepsTasksRunning(t *testing.T) {
	fm := newFakeMaster(t)
	dir := t.TempDir()
	startAgent(t, testConfig(t, fm, dir))
	release := filepath.Join(dir, "release")
	pidFile := filepath.Join(dir, "pid")
	s := spec(0, 0, `echo $$ > `+pidFile+`; while [ ! -e `+release+` ]; do sleep 0.01; done; echo finished`)
	fm.send(startCmd(s))
	pgid := readPid(t, pidFile)
	fm.waitFor("the running report", func(fm *fakeMaster) bool { return len(fm.reportsFor(s.ID())) == 1 })

	fm.set(func(fm *fakeMaster) { fm.down = true })
	fm.waitFor("refused connections", func(fm *fakeMaster) bool { return fm.refused >= 3 })
	if !groupLive(t, pgid) {
		t.Fatal("the task died while the master was down")
	}
	// The task ends during the outage; its report and logs wait.
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	groupGone(t, pgid)
	var before int
	fm.locked(func(fm *fakeMaster) { before = fm.refused })
	fm.waitFor("retries after the exit", func(fm *fakeMaster) bool { return fm.refused >= before+3 })
	fm.set(func(fm *fakeMaster) { fm.down = false })

	fm.waitFor("the exit report", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	fm.locked(func(fm *fakeMaster) {
		exit, _ := fm.exitOf(s.ID())
		if exit.Outcome != string(agent.OutcomeCompleted) || exit.ExitCode == nil || *exit.ExitCode != 0 {
			t.Errorf("exit = %+v, want completed with exit code 0", exit)
		}
		if fm.exitLogs[s.ID()] != 1 || !fm.hasLine(s.ID(), "finished") {
			t.Errorf("logs %q (%d at the exit report), want the finished line first", fm.logText(s.ID()), fm.exitLogs[s.ID()])
		}
		if len(fm.registers) != 1 {
			t.Errorf("%d registrations, want 1: the master kept the node", len(fm.registers))
		}
	})
}

func TestNotFoundRegistersAgain(t *testing.T) {
	fm := newFakeMaster(t)
	startAgent(t, testConfig(t, fm, t.TempDir()))
	s := spec(0, 0, `echo up; sleep 600`, 0, 1)
	fm.send(startCmd(s))
	fm.waitFor("the task's output", func(fm *fakeMaster) bool { return fm.hasLine(s.ID(), "up") })
	// The master lost its database: it knows the node no more.
	fm.set(func(fm *fakeMaster) { fm.known = false })
	fm.waitFor("a second registration", func(fm *fakeMaster) bool { return len(fm.registers) == 2 })
	fm.locked(func(fm *fakeMaster) {
		if got := fm.registers[1].Running; !reflect.DeepEqual(got, []agent.TaskID{s.ID()}) {
			t.Errorf("running at re-registration = %v, want [%s]", got, s.ID())
		}
	})
	// The reconciliation answers with a kill, which the agent carries out.
	fm.send(stopCmd(api.CommandKill, s.ID(), 0))
	fm.waitFor("the kill", func(fm *fakeMaster) bool {
		exit, ok := fm.exitOf(s.ID())
		return ok && exit.Outcome == string(agent.OutcomeKilled)
	})
}

func TestCommandsInTheRegisterReply(t *testing.T) {
	fm := newFakeMaster(t)
	s := spec(0, 0, `echo hello`)
	fm.send(startCmd(s)) // pending before the node registers
	startAgent(t, testConfig(t, fm, t.TempDir()))
	fm.waitFor("the exit", func(fm *fakeMaster) bool {
		exit, ok := fm.exitOf(s.ID())
		return ok && exit.Outcome == string(agent.OutcomeCompleted)
	})
}
