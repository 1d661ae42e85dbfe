//go:build linux

package agentd

import (
	"cmp"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestEndedWhileAgentDownDeliversOutput: a task whose agent was killed
// with kill -9 prints lines and exits 0 while no agent runs; its shim
// keeps the lines in its output file. The next agent reports the exit
// at once, delivers every line, in order, and removes the file. When it
// stops before the master takes the lines, the file and the record stay
// for the agent after it; and an agent that delivers the file again
// sends lines the master stores once.
func TestEndedWhileAgentDownDeliversOutput(t *testing.T) {
	tests := []struct {
		name string
		// logsDownFirst: the first agent after the task ended cannot
		// deliver the lines (the master answers 503) and stops.
		logsDownFirst bool
		// again: the file and its record are put back once delivered,
		// as if the agent had died before it removed them.
		again bool
	}{
		{"delivered with the exit report, the file removed", false, false},
		{"the master refused the lines until the agent stopped: the next agent delivers them", true, false},
		{"delivered again after another restart: stored once", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			dir := t.TempDir()
			const n = 3000
			s := spec(0, 0, `echo up; while [ ! -e go ]; do sleep 0.05; done; `+
				`i=0; while [ $i -lt 3000 ]; do echo "after $i"; i=$((i+1)); done; echo "after err" >&2; exit 0`)
			rec := orphanTask(t, fm, dir, s)
			if err := os.WriteFile(filepath.Join(rec.WorkDir, "go"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			ctxWait(t, "the task to end with no agent", func() bool {
				_, ok, _ := agent.ReadExitFile(rec.ExitFile)
				return ok
			})
			outputFile := filepath.Join(rec.WorkDir, agent.StateDir, agent.OutputFileName(0, 0))
			kept, err := os.ReadFile(outputFile)
			if err != nil {
				t.Fatalf("the shim kept no output file: %v", err)
			}
			registrations := 1

			if tt.logsDownFirst {
				fm.set(func(fm *fakeMaster) { fm.failLogs, fm.logStatus = 1<<30, http.StatusServiceUnavailable })
				cfg := testConfig(t, fm, dir)
				cfg.OnExit = ExitKeep
				r := startAgent(t, cfg)
				registrations++
				fm.waitFor("the exit report, with the lines undelivered", func(fm *fakeMaster) bool {
					_, ok := fm.exitOf(s.ID())
					return ok
				})
				ctxWait(t, "the exit report's acknowledgement", func() bool {
					r.a.mu.Lock()
					defer r.a.mu.Unlock()
					return len(r.a.reports) == 0
				})
				if err := r.stop(t); err != nil {
					t.Fatalf("Run: %v", err)
				}
				if st := readStateFile(t, dir); len(st.Attempts) != 1 || !st.Attempts[0].Ended || st.Attempts[0].Adoptions != 1 {
					t.Errorf("state file after the agent stopped = %+v, want the attempt, ended, its output to deliver", st)
				}
				if _, err := os.Stat(outputFile); err != nil {
					t.Errorf("the undelivered output file is gone: %v", err)
				}
				fm.set(func(fm *fakeMaster) { fm.failLogs = 0 })
			}

			r := startAgent(t, testConfig(t, fm, dir))
			registrations++
			fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == registrations })
			fm.locked(func(fm *fakeMaster) {
				if got := fm.registers[registrations-1].Running; len(got) != 0 {
					t.Errorf("registered running %v, want nothing", got)
				}
			})
			awaitDelivered(t, fm, dir, s.ID(), outputFile)

			if tt.again {
				if err := r.stop(t); err != nil {
					t.Fatalf("Run: %v", err)
				}
				stored := 0
				fm.locked(func(fm *fakeMaster) { stored = len(fm.logText(s.ID())) })
				if err := os.WriteFile(outputFile, kept, 0o644); err != nil {
					t.Fatal(err)
				}
				rec.Ended, rec.Adoptions = true, 1
				if err := writeState(filepath.Join(dir, StateFileName), stateFile{Version: stateVersion, Attempts: []stateRecord{rec}}); err != nil {
					t.Fatal(err)
				}
				startAgent(t, testConfig(t, fm, dir))
				registrations++
				fm.waitFor("the registration", func(fm *fakeMaster) bool { return len(fm.registers) == registrations })
				awaitDelivered(t, fm, dir, s.ID(), outputFile)
				fm.locked(func(fm *fakeMaster) {
					if got := len(fm.logText(s.ID())); got != stored {
						t.Errorf("the master has %d lines after the file was delivered again, want the %d it had", got, stored)
					}
				})
			}

			fm.locked(func(fm *fakeMaster) {
				exits := 0
				for _, r := range fm.reportsFor(s.ID()) {
					if r.Event != api.EventExited {
						continue
					}
					exits++
					if r.Outcome != string(agent.OutcomeCompleted) || r.ExitCode == nil || *r.ExitCode != 0 {
						t.Errorf("exit report %+v, want completed with exit code 0", r)
					}
				}
				if exits != 1 {
					t.Errorf("%d exit reports, want 1", exits)
				}
				notes := 0
				for _, l := range fm.logText(s.ID()) {
					if strings.HasPrefix(l, "stderr: [allot agent]") {
						notes++
						if !strings.Contains(l, "ended while no agent ran") {
							t.Errorf("the agent's line %q does not say that the attempt ended while no agent ran", l)
						}
					}
				}
				if notes != 1 {
					t.Errorf("%d lines of the agent's, want 1: %q", notes, fm.logText(s.ID()))
				}
				checkAfterOrder(t, fm, s.ID(), n)
				checkNoteLast(t, fm, s.ID())
			})
		})
	}
}

// awaitDelivered waits until the agent on dir has delivered an ended
// attempt's output file: the master has its exit report, the file is
// removed and the state file is empty.
func awaitDelivered(t *testing.T, fm *fakeMaster, dir string, id agent.TaskID, outputFile string) {
	t.Helper()
	fm.waitFor("the exit report", func(fm *fakeMaster) bool { _, ok := fm.exitOf(id); return ok })
	ctxWait(t, "the output file's removal", func() bool {
		_, err := os.Stat(outputFile)
		return errors.Is(err, os.ErrNotExist)
	})
	ctxWait(t, "the record's removal from the state file", func() bool {
		return len(readStateFile(t, dir).Attempts) == 0
	})
}

// checkNoteLast checks that the agent's line on an attempt that ended
// while no agent ran reads last, as the master serves a log (by Seq),
// and is stamped no earlier than any line of the task's above it: placed
// first, it stood above older lines (trial 2026-11-29e E10).
func checkNoteLast(t *testing.T, fm *fakeMaster, id agent.TaskID) {
	t.Helper()
	var lines []api.AgentLogLine
	for _, l := range fm.logs {
		if l.Task == id {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		t.Fatal("no lines")
	}
	slices.SortFunc(lines, func(a, b api.AgentLogLine) int { return cmp.Compare(a.Seq, b.Seq) })
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last.Text, "[allot agent]") || !strings.Contains(last.Text, "the lines above") {
		t.Errorf("the last line by Seq is %q, want the agent's line on the lines above it", last.Text)
	}
	for _, l := range lines[:len(lines)-1] {
		if l.Time.After(last.Time) {
			t.Errorf("line %d %q at %s is later than the agent's line below it, at %s", l.Seq, l.Text, l.Time, last.Time)
			break
		}
	}
}
