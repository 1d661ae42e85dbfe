package agentd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// TestShimFenceOutlivesTheAgent: an agent killed with kill -9 while the
// master fences leaves the fence to its tasks' shims (the fence file):
// the task is asked to checkpoint before the master would lose the node,
// not left to run on beside the attempt the master starts elsewhere; the
// next agent on the work directory reports it preempted, saying why.
// An agent stopped with kill -STOP cannot fence either: the shims do,
// and the agent, once continued, reports the attempt preempted itself.
// Under a master that does not fence the task runs on.
func TestShimFenceOutlivesTheAgent(t *testing.T) {
	const timeout = 5 * time.Second
	tests := []struct {
		name    string
		fencing bool
		sig     syscall.Signal
	}{
		{"kill -9, fence", true, syscall.SIGKILL},
		{"kill -STOP, fence", true, syscall.SIGSTOP},
		{"kill -9, no fence", false, syscall.SIGKILL},
	}
	for _, tt := range tests {
		fencing := tt.fencing
		t.Run(tt.name, func(t *testing.T) {
			fm := newFakeMaster(t)
			dir := t.TempDir()
			fm.set(func(fm *fakeMaster) {
				fm.holdCap = time.Second
				if fencing {
					fm.fence = &api.Fence{AgentTimeoutMS: timeout.Milliseconds(), LostNodeGraceMS: time.Minute.Milliseconds(), GraceS: 2}
				}
			})
			child := startChildAgent(t, fm, dir, "AGENTD_TEST_FENCE_BOUNDS=500ms")
			s := spec(0, 0, `trap 'echo saved > saved; exit 0' TERM; echo up; while :; do sleep 0.05; done`)
			fm.send(startCmd(s))
			fm.waitFor("the task's output and running report", func(fm *fakeMaster) bool {
				return fm.hasLine(s.ID(), "up") && len(fm.reportsFor(s.ID())) == 1
			})
			rec := readStateFile(t, dir).Attempts[0]
			t.Cleanup(func() { killGroup(rec.Pgid) })
			fenceFile := filepath.Join(dir, agent.FenceFileName)
			var written agent.FenceFile
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				f, ok, err := agent.ReadFenceFile(fenceFile)
				if err != nil {
					t.Fatal(err)
				}
				if ok && f.AgentPID == child.Process.Pid && f.Fences == fencing {
					written = f
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("fence file %+v (ok %v), want one written by the agent (pid %d), fences %v", f, ok, child.Process.Pid, fencing)
				}
			}
			if err := child.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			if tt.sig == syscall.SIGKILL {
				_ = child.Wait()
			}

			if !fencing {
				time.Sleep(timeout)
				if !groupLive(t, rec.Pgid) {
					t.Fatal("the task stopped under a master that does not fence")
				}
				return
			}
			groupGone(t, rec.Pgid)
			st, ok, err := agent.ReadExitFile(rec.ExitFile)
			if err != nil || !ok {
				t.Fatalf("exit file: ok %v, err %v", ok, err)
			}
			if st.ExitCode != 0 || !strings.Contains(st.Fenced, "task shim's fence") {
				t.Fatalf("exit file %+v, want the checkpoint's exit 0, fenced by the shim", st)
			}
			if _, err := os.Stat(filepath.Join(rec.WorkDir, "saved")); err != nil {
				t.Errorf("the task was not asked to checkpoint: %v", err)
			}
			if final, _, _ := agent.ReadFenceFile(fenceFile); final.Contact.After(written.Contact) {
				written = final
			}
			if d := st.ExitedAt.Sub(written.Contact); d >= timeout {
				t.Errorf("the task ended %s after the agent's last contact, want before the master's agent_timeout %s", d, timeout)
			}

			if tt.sig == syscall.SIGSTOP {
				if err := child.Process.Signal(syscall.SIGCONT); err != nil {
					t.Fatal(err)
				}
			} else {
				startAgent(t, testConfig(t, fm, dir))
			}
			fm.waitFor("the ended attempt's exit report", func(fm *fakeMaster) bool {
				_, ok := fm.exitOf(s.ID())
				return ok
			})
			fm.locked(func(fm *fakeMaster) {
				exit, _ := fm.exitOf(s.ID())
				if exit.Outcome != string(agent.OutcomePreempted) || !strings.Contains(exit.Error, "task shim's fence") {
					t.Errorf("exit report %+v, want preempted, saying the shim's fence stopped it", exit)
				}
			})
		})
	}
}
