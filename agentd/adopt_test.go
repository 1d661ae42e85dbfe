//go:build linux

package agentd

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

func TestOrphanFate(t *testing.T) {
	shim := stateRecord{Pgid: 100, StartTicks: 42, ExitFile: "/w/.allot/exit-0-0.json"}
	noShim := shim
	noShim.ExitFile = ""
	noTicks := shim
	noTicks.StartTicks = 0
	alive := orphanProbe{members: 2, owned: true, leaderTicks: 42}
	tests := []struct {
		name  string
		rec   stateRecord
		probe func(p *orphanProbe)
		want  orphanFate
	}{
		{"shim, leader alive with its start time: adopted", shim, func(*orphanProbe) {}, fateAdopt},
		{"nothing alive", shim, func(p *orphanProbe) { *p = orphanProbe{} }, fateGone},
		{"group id reused by others", shim, func(p *orphanProbe) { p.owned, p.leaderTicks = false, 7 }, fateForeign},
		{"no shim: killed", noShim, func(*orphanProbe) {}, fateKill},
		{"no start time recorded: killed", noTicks, func(*orphanProbe) {}, fateKill},
		{"leader gone, members owned by environment: killed", shim, func(p *orphanProbe) { p.leaderTicks = 0 }, fateKill},
		{"leader pid reused (another start time): killed", shim, func(p *orphanProbe) { p.leaderTicks = 43 }, fateKill},
		{"exit file written (the task ended): killed", shim, func(p *orphanProbe) { p.exited = true }, fateKill},
		{"exit already reported: killed", shim, func(p *orphanProbe) { p.reported = true }, fateKill},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := alive
			tt.probe(&p)
			if got := orphanFateOf(tt.rec, p); got != tt.want {
				t.Errorf("fate %v, want %v", got, tt.want)
			}
		})
	}
}

// orphanTask has a child agent on dir start s, then kills the agent with
// kill -9, and returns the record it left of the task, which runs on.
func orphanTask(t *testing.T, fm *fakeMaster, dir string, s *agent.TaskSpec) stateRecord {
	t.Helper()
	child := startChildAgent(t, fm, dir)
	fm.send(startCmd(s))
	fm.waitFor("the task's output and running report", func(fm *fakeMaster) bool {
		return fm.hasLine(s.ID(), "up") && len(fm.reportsFor(s.ID())) == 1
	})
	st := readStateFile(t, dir)
	if len(st.Attempts) != 1 || st.Attempts[0].StartTicks == 0 || st.Attempts[0].ExitFile == "" {
		t.Fatalf("state file = %+v, want the attempt with its start time and exit file", st)
	}
	rec := st.Attempts[0]
	t.Cleanup(func() { killGroup(rec.Pgid) })
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if !groupLive(t, rec.Pgid) {
		t.Fatalf("the task died with its agent; nothing to test (agent stderr: %s)", child.Stderr)
	}
	return rec
}

// TestRestartAdoptsAfterKill9: an agent killed with kill -9 leaves its
// shim-run task running; the next agent on the work directory adopts it
// (lists it at registration), and then either reports its real end, or,
// when the master answers with a kill (it ended the attempt as lost
// already), kills the group before it starts anything after the kill:
// the next attempt of the task, on the same directory, finds no process
// of the old group. What the task prints after the kill -9 reaches the
// master, in order, before the exit report.
func TestRestartAdoptsAfterKill9(t *testing.T) {
	tests := []struct {
		name        string
		masterKills bool
		outcome     agent.Outcome
	}{
		{"the master expects it: it runs on, exit 0 is completed", false, agent.OutcomeCompleted},
		{"the master ended it as lost: killed before the next start", true, agent.OutcomeKilled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			dir := t.TempDir()
			// More than a pipe's buffer, after the agent's death.
			s := spec(0, 0, `echo up; while [ ! -e go ]; do sleep 0.05; done; `+
				`i=0; while [ $i -lt 5000 ]; do echo "after $i"; i=$((i+1)); done; echo "after err" >&2; exit 0`)
			rec := orphanTask(t, fm, dir, s)
			next := spec(0, 1, `n=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v g=`+strconv.Itoa(rec.Pgid)+
				` '$5 == g && $3 != "Z"' | wc -l); echo "old group members: $n"`)
			if tt.masterKills {
				fm.set(func(fm *fakeMaster) {
					fm.commands = []api.Command{stopCmd(api.CommandKill, s.ID(), 0), startCmd(next)}
				})
			}

			cfg := testConfig(t, fm, dir)
			logs := &syncBuffer{}
			cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
			startAgent(t, cfg)
			fm.waitFor("the new agent's registration", func(fm *fakeMaster) bool { return len(fm.registers) == 2 })
			fm.locked(func(fm *fakeMaster) {
				if got := fm.registers[1].Running; !slices.Equal(got, []agent.TaskID{s.ID()}) {
					t.Errorf("registered running %v, want the adopted %v", got, s.ID())
				}
			})
			if !tt.masterKills {
				if st := readStateFile(t, dir); len(st.Attempts) != 1 || st.Attempts[0].Adoptions != 1 {
					t.Errorf("state file after adoption = %+v, want the attempt, adopted once", st)
				}
				if !groupLive(t, rec.Pgid) {
					t.Fatal("the adopted task did not survive the restart")
				}
				if err := os.WriteFile(filepath.Join(rec.WorkDir, "go"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fm.waitFor("the adopted attempt's exit report", func(fm *fakeMaster) bool {
				_, ok := fm.exitOf(s.ID())
				return ok
			})
			groupGone(t, rec.Pgid)
			fm.locked(func(fm *fakeMaster) {
				r, _ := fm.exitOf(s.ID())
				if r.Outcome != string(tt.outcome) || (tt.outcome == agent.OutcomeCompleted && (r.ExitCode == nil || *r.ExitCode != 0)) {
					t.Errorf("exit report %+v, want %s", r, tt.outcome)
				}
				if !slices.ContainsFunc(fm.logText(s.ID()), func(l string) bool { return strings.HasPrefix(l, "stderr: [allot agent]") }) {
					t.Errorf("no line of the agent's saying where output comes from; logs: %q", fm.logText(s.ID()))
				}
				if !tt.masterKills {
					checkAfterLines(t, fm, s.ID(), 5000)
				}
			})
			outputFile := filepath.Join(rec.WorkDir, agent.StateDir, agent.OutputFileName(0, 0))
			if _, err := os.Stat(outputFile); !tt.masterKills && err == nil {
				t.Errorf("the output file %s is left after the attempt was reported", outputFile)
			}
			if tt.masterKills {
				fm.waitFor("the next attempt's exit report", func(fm *fakeMaster) bool {
					_, ok := fm.exitOf(next.ID())
					return ok
				})
				fm.locked(func(fm *fakeMaster) {
					if !fm.hasLine(next.ID(), "old group members: 0") {
						t.Errorf("the next attempt ran beside the old group: %q", fm.logText(next.ID()))
					}
				})
			}
			if st := readStateFile(t, dir); len(st.Attempts) != 0 {
				t.Errorf("state file after the end = %+v, want empty", st)
			}
			// The adoption is logged before the master's answer: it must
			// not say the attempt runs on, which a kill may belie.
			if l := logs.String(); !strings.Contains(l, "took it over; the master's answer") || strings.Contains(l, "it runs on") {
				t.Errorf("agent log:\n%s\nwant the adoption logged as taken over, pending the master's answer", l)
			}
		})
	}
}

// checkAfterLines checks that the master has the n lines "after I" the
// task printed once orphaned, in order, and "after err" on stderr, each
// once, all stored before the exit report.
func checkAfterLines(t *testing.T, fm *fakeMaster, id agent.TaskID, n int) {
	t.Helper()
	checkAfterOrder(t, fm, id, n)
	if stored := len(fm.logText(id)); fm.exitLogs[id] != stored {
		t.Errorf("%d of the %d lines were stored at the exit report, want all", fm.exitLogs[id], stored)
	}
}

// checkAfterOrder checks that the master has the n lines "after I" in
// order and "after err" on stderr, each once.
func checkAfterOrder(t *testing.T, fm *fakeMaster, id agent.TaskID, n int) {
	t.Helper()
	var after []string
	errLines := 0
	for _, l := range fm.logs {
		switch {
		case l.Task == id && l.Stream == "stdout" && strings.HasPrefix(l.Text, "after "):
			after = append(after, l.Text)
		case l.Task == id && l.Stream == "stderr" && l.Text == "after err":
			errLines++
		}
	}
	ok := len(after) == n && errLines == 1
	for i := 0; ok && i < n; i++ {
		ok = after[i] == "after "+strconv.Itoa(i)
	}
	if !ok {
		t.Errorf("the master has %d stdout lines \"after I\" and %d \"after err\", want 0..%d in order and 1", len(after), errLines, n-1)
	}
}

// TestAdoptedTwice: an adopted attempt that its agent leaves running
// (--on-exit keep) is adopted again by the next one, which reports its end.
// The next adopter reads the shim's output file from its start again: the
// lines the first one delivered are stored once.
func TestAdoptedTwice(t *testing.T) {
	fm := newFakeMaster(t)
	dir := t.TempDir()
	s := spec(0, 0, `echo up; while [ ! -e step ]; do sleep 0.05; done; echo "after 0"; `+
		`while [ ! -e go ]; do sleep 0.05; done; echo "after 1"; echo "after err" >&2; exit 0`)
	rec := orphanTask(t, fm, dir, s)

	cfg := testConfig(t, fm, dir)
	cfg.OnExit = ExitKeep
	r := startAgent(t, cfg)
	fm.waitFor("the first adopter's registration", func(fm *fakeMaster) bool { return len(fm.registers) == 2 })
	if err := os.WriteFile(filepath.Join(rec.WorkDir, "step"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fm.waitFor("the line the first adopter delivers", func(fm *fakeMaster) bool { return fm.hasLine(s.ID(), "after 0") })
	if err := r.stop(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if st := readStateFile(t, dir); len(st.Attempts) != 1 || st.Attempts[0].Adoptions != 1 {
		t.Fatalf("state file after the first adopter left = %+v, want the attempt, adopted once", st)
	}
	startAgent(t, testConfig(t, fm, dir))
	fm.waitFor("the third registration", func(fm *fakeMaster) bool { return len(fm.registers) == 3 })
	if st := readStateFile(t, dir); len(st.Attempts) != 1 || st.Attempts[0].Adoptions != 2 {
		t.Errorf("state file = %+v, want the attempt, adopted twice", st)
	}
	if err := os.WriteFile(filepath.Join(rec.WorkDir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fm.waitFor("the exit report", func(fm *fakeMaster) bool { _, ok := fm.exitOf(s.ID()); return ok })
	fm.locked(func(fm *fakeMaster) {
		for i, reg := range fm.registers[1:] {
			if !slices.Equal(reg.Running, []agent.TaskID{s.ID()}) {
				t.Errorf("registration %d lists %v, want the adopted attempt", i+2, reg.Running)
			}
		}
		if r, _ := fm.exitOf(s.ID()); r.Outcome != string(agent.OutcomeCompleted) {
			t.Errorf("exit report %+v, want completed", r)
		}
		notes := 0
		for _, l := range fm.logText(s.ID()) {
			if strings.HasPrefix(l, "stderr: [allot agent]") {
				notes++
			}
		}
		if notes != 2 {
			t.Errorf("%d lines of the agent's, want one per adoption: %q", notes, fm.logText(s.ID()))
		}
		checkAfterLines(t, fm, s.ID(), 2)
	})
}
