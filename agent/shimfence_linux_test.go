package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestShimFence: a shim stops its task by the fence file only when the
// agent that wrote it is gone, the shim is no longer its starting agent's
// child, and the fence's time for the attempt has come; then it asks for
// the checkpoint as a preemption does and kills the group at the grace's
// end, saying so in the exit file.
func TestShimFence(t *testing.T) {
	const (
		checkpoints = `trap 'echo saved > saved; exit 0' TERM; touch ready; while :; do sleep 0.05; done`
		ignores     = `trap '' TERM; touch ready; while :; do sleep 0.05; done`
		ends        = `touch ready; sleep 1.5; exit 3`
		// notes each SIGTERM and runs on, as a task that traps the
		// agent's kill and hangs (trial 2026-11-29g G8).
		notes = `trap 'touch termed' TERM; touch ready; while :; do sleep 0.05; done`
		id    = "j/0/1"
	)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := dead.Process.Pid
	self := FenceFile{AgentPID: os.Getpid(), AgentTicks: ownTicks(t)}
	stopped := exec.Command("sleep", "60")
	if err := stopped.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stopped.Process.Kill(); _ = stopped.Wait() })
	if err := stopped.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	frozen := FenceFile{AgentPID: stopped.Process.Pid, AgentTicks: ticksOf(t, stopped.Process.Pid)}
	longAgo := time.Now().Add(-time.Minute)
	tests := []struct {
		name     string
		task     string
		fence    FenceFile
		child    bool // started by a live agent (ShimDrainArg with this process)
		want     ExitStatus
		fenced   string // a part of the exit file's Fenced; "" for none
		saved    bool
		askedFor bool // a preempt file was written
		killed   bool // the agent's kill (SIGTERM to the group) came before the fence
	}{
		{"writer gone, time up: the task checkpoints", checkpoints,
			FenceFile{AgentPID: gone, AgentTicks: 1, Fences: true, Contact: longAgo, AfterMS: 1000, GraceMS: 10000},
			false, ExitStatus{ExitCode: 0}, "task shim's fence", true, true, false},
		{"writer gone, the task ignores the request: killed at the grace's end", ignores,
			FenceFile{AgentPID: gone, AgentTicks: 1, Fences: true, Contact: longAgo, AfterMS: 1000, GraceMS: 300},
			false, ExitStatus{ExitCode: -1, Signal: "SIGKILL"}, "killed at the end of its grace", false, true, false},
		{"writer alive: its own fence stops the task", ends,
			FenceFile{AgentPID: self.AgentPID, AgentTicks: self.AgentTicks, Fences: true, Contact: longAgo, AfterMS: 1000},
			false, ExitStatus{ExitCode: 3}, "", false, false, false},
		{"writer stopped (kill -STOP): it cannot fence, the shim does", checkpoints,
			FenceFile{AgentPID: frozen.AgentPID, AgentTicks: frozen.AgentTicks, Fences: true, Contact: longAgo, AfterMS: 1000, GraceMS: 10000},
			false, ExitStatus{ExitCode: 0}, "task shim's fence", true, true, false},
		{"held through the loss: its time has not come", ends,
			FenceFile{AgentPID: gone, AgentTicks: 1, Fences: true, Contact: longAgo, AfterMS: 1000, HeldAfterMS: 3_600_000, Held: []string{id}},
			false, ExitStatus{ExitCode: 3}, "", false, false, false},
		{"the master does not fence", ends,
			FenceFile{AgentPID: gone, AgentTicks: 1},
			false, ExitStatus{ExitCode: 3}, "", false, false, false},
		{"still its live agent's child: the agent fences", ends,
			FenceFile{AgentPID: gone, AgentTicks: 1, Fences: true, Contact: longAgo, AfterMS: 1000},
			true, ExitStatus{ExitCode: 3}, "", false, false, false},
		{"not held: requeued if its job may run again", ignores,
			FenceFile{AgentPID: gone, AgentTicks: 1, Fences: true, Contact: longAgo, AfterMS: 1000, GraceMS: 300},
			false, ExitStatus{ExitCode: -1, Signal: "SIGKILL"}, "after which the master ends the attempt, and requeues the task elsewhere if its job may run again", false, true, false},
		{"being killed when the agent went: not said to be requeued", notes,
			FenceFile{AgentPID: gone, AgentTicks: 1, Fences: true, Contact: longAgo, AfterMS: 1000, GraceMS: 300},
			false, ExitStatus{ExitCode: -1, Signal: "SIGKILL"}, "after which the master ends the attempt, which was being killed; killed at the end of its grace", false, true, true},
		{"held through the loss, its time come: failed", ignores,
			FenceFile{AgentPID: gone, AgentTicks: 1, Fences: true, Contact: longAgo, AfterMS: 3_600_000, HeldAfterMS: 1000, HeldGraceMS: 300, Held: []string{id}},
			false, ExitStatus{ExitCode: -1, Signal: "SIGKILL"}, "after which the master fails the attempt, as it held it only for lost_node_grace", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			exitFile, fenceFile := filepath.Join(dir, ExitFileName(1, 0)), filepath.Join(dir, FenceFileName)
			args := []string{ShimArg}
			var extra []*os.File
			if tt.child {
				rOut, wOut, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				rErr, wErr, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					for _, f := range []*os.File{rOut, wOut, rErr, wErr} {
						f.Close()
					}
				}()
				extra = []*os.File{rOut, rErr}
				args = append(args, ShimDrainArg, strconv.Itoa(os.Getpid()))
			}
			args = append(args, ShimFenceArg, fenceFile, id, strconv.Itoa(int(syscall.SIGTERM)), exitFile, "/bin/sh", "-c", tt.task)
			cmd := exec.Command(os.Args[0], args...)
			cmd.Dir, cmd.ExtraFiles = dir, extra
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			awaitFile(t, filepath.Join(dir, "ready"))
			if tt.killed {
				// As Task.Kill: SIGTERM to the group, no preempt file.
				if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				awaitFile(t, filepath.Join(dir, "termed"))
			}
			if err := WriteFenceFile(fenceFile, tt.fence); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			st := awaitExitFile(t, exitFile)
			if st.ExitCode != tt.want.ExitCode || st.Signal != tt.want.Signal {
				t.Errorf("exit file %+v, want code %d signal %q", st, tt.want.ExitCode, tt.want.Signal)
			}
			if tt.fenced == "" && st.Fenced != "" || !strings.Contains(st.Fenced, tt.fenced) {
				t.Errorf("exit file says fenced %q, want %q", st.Fenced, tt.fenced)
			}
			if _, err := os.Stat(filepath.Join(dir, "saved")); (err == nil) != tt.saved {
				t.Errorf("the task's checkpoint written: %v, want %v", err == nil, tt.saved)
			}
			if _, err := os.Stat(filepath.Join(dir, PreemptFileName)); (err == nil) != tt.askedFor {
				t.Errorf("preempt file written: %v, want %v", err == nil, tt.askedFor)
			}
		})
	}
}

func TestShimFenceArgsRejects(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"too few", []string{ShimFenceArg, "f", "j/0/1", "15", "exit"}, "expected --fence FENCEFILE TASKID SIGNAL"},
		{"empty file", []string{ShimFenceArg, "", "j/0/1", "15", "exit", "sh"}, "expected --fence FENCEFILE"},
		{"signal not a number", []string{ShimFenceArg, "f", "j/0/1", "TERM", "exit", "sh"}, "expected the preemption's signal number"},
		{"signal out of range", []string{ShimFenceArg, "f", "j/0/1", "99", "exit", "sh"}, "expected the preemption's signal number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := shimFenceArgs(tt.args); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("shimFenceArgs(%q) = %v, want an error saying %q", tt.args, err, tt.want)
			}
		})
	}
}

func TestReadFenceFileRejects(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"not JSON", "fence", "expected the JSON an agent writes"},
		{"no writer", `{"agent_pid":0,"fences":true}`, "expected a positive agent_pid"},
		{"negative time", `{"agent_pid":7,"after_ms":-1}`, "times of 0 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), FenceFileName)
			if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, ok, err := ReadFenceFile(p); ok || err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("ReadFenceFile = ok %v, err %v; want an error naming %s and saying %q", ok, err, p, tt.want)
			}
		})
	}
}

func ownTicks(t *testing.T) uint64 { return ticksOf(t, os.Getpid()) }

func ticksOf(t *testing.T, pid int) uint64 {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	_, ticks, ok := parseStartTicks(stat)
	if !ok {
		t.Fatalf("cannot read the start time of process %d", pid)
	}
	return ticks
}
