package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The task shim keeps a task's exit status when no agent is there to
// collect it. Without it a task's leader is the agent's child, and when
// the agent dies (kill -9, OOM) a task that ends before the next agent
// starts leaves no status behind: a run that exited 0 could only be
// called lost. With Runner.Shim set, the leader is a small process that
// runs the task's shell as its own child, waits for it, writes the status
// to an exit file (write, fsync, rename) and then ends the same way: with
// the same exit code, or killed by the same signal. A restarted agent
// reads the file and reports the real outcome.
//
// The shim shares the task's process group, so Preempt's signal and Kill's
// SIGKILL reach the task as before. It catches the usual termination
// signals (a caught handler is reset to the default in the child by exec,
// so the task still gets them as before), which lets it outlive a
// checkpointing task and record how it ended; those it catches before
// the task exists it sends to the task once it does (shimearly.go).

// ShimArg is the first argument that makes an allot binary run as a task
// shim: BINARY ShimArg [ShimDrainArg AGENTPID [ShimOutputArg OUTPUTFILE
// MAXBYTES]] [ShimFenceArg FENCEFILE TASKID SIGNAL] EXITFILE PROGRAM ARGS...
const ShimArg = "__allot-task-shim"

// ShimDrainArg, followed by the agent's process id, says that the shim
// inherits the read ends of its task's stdout and stderr pipes as file
// descriptors 3 and 4. It keeps them open and, once the agent is gone
// (the shim's parent is no longer AGENTPID), reads what the task writes,
// into the output file that ShimOutputArg names (shimoutput.go), or into
// nothing without one. Without that, the pipes lose their only reader
// with the agent and the task's next write kills it (SIGPIPE) or fails
// (EPIPE, as in Python, which ignores SIGPIPE): a kill -9 of the agent
// would end every task as failed instead of leaving it to the next
// agent, which reaps it so that the master ends the attempt as lost.
const ShimDrainArg = "--drain-when-orphaned"

// orphanPoll is how often a shim looks for its agent's death. Until it
// notices, the pipes hold the output, and a task that fills a pipe's
// buffer waits to write.
const orphanPoll = 200 * time.Millisecond

// ExitStatus is what a shim records of its task's end.
type ExitStatus struct {
	// ExitCode is the exit status, or -1 when a signal ended the task;
	// Signal then names it ("SIGTERM").
	ExitCode int       `json:"exit_code"`
	Signal   string    `json:"signal,omitempty"`
	ExitedAt time.Time `json:"exited_at"`
	// OutputDropped counts the output lines that a shim keeping the
	// task's output (ShimOutputArg) read and did not keep: past the
	// output file's cap, or after an error writing it, which
	// OutputError then says.
	OutputDropped uint64 `json:"output_dropped,omitempty"`
	OutputError   string `json:"output_error,omitempty"`
	// Fenced says why the shim's fence stopped the task (ShimFenceArg):
	// its agent was gone past the fence's time. "" when it did not.
	Fenced string `json:"fenced,omitempty"`
	// FencedAt is when the shim's fence asked the task to stop: the
	// attempt's end is the fence's only if it came after that.
	FencedAt time.Time `json:"fenced_at,omitzero"`
}

// ExitFileName is the exit file of one attempt's part, under the task's
// StateDir: the attempt and node rank keep a later attempt or another
// part from reading an earlier one's status.
func ExitFileName(attempt, nodeRank int) string {
	return "exit-" + strconv.Itoa(attempt) + "-" + strconv.Itoa(nodeRank) + ".json"
}

// ReadExitFile reads an exit file; ok is false when there is none (the
// task has not ended, or it ended with its shim, by SIGKILL).
func ReadExitFile(path string) (st ExitStatus, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, false, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("read exit file: %w", err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, false, fmt.Errorf("exit file %s: %w (expected the JSON a task shim writes)", path, err)
	}
	if st.ExitCode < -1 || st.ExitCode > 255 || (st.ExitCode == -1) != (st.Signal != "") {
		return st, false, fmt.Errorf("exit file %s: exit code %d with signal %q: expected 0..255 without a signal, or -1 with one",
			path, st.ExitCode, st.Signal)
	}
	return st, true, nil
}

// exitTime is when a task exited, as its agent learns of the exit at
// now: the time its shim recorded (st, when ok), else now. The agent's
// own clock reading is only when it got round to noticing: stopped
// (kill -STOP) or starved, it notices late, and the usage charged and
// the exit reported would run to then. A recorded time is taken into
// [started, now], as the attempt can neither have exited before it
// started nor after the agent saw it gone (the clock was stepped).
func exitTime(st ExitStatus, ok bool, started, now time.Time) time.Time {
	switch {
	case !ok || st.ExitedAt.IsZero() || st.ExitedAt.After(now):
		return now
	case st.ExitedAt.Before(started):
		return started
	}
	return st.ExitedAt
}

// readExitTime is exitTime from the exit file path; "" (no shim) or no
// file gives now. An error reading the file gives now with the error.
func readExitTime(path string, started, now time.Time) (time.Time, error) {
	if path == "" {
		return now, nil
	}
	st, ok, err := ReadExitFile(path)
	return exitTime(st, ok, started, now), err
}

// shimSignals are caught by the shim so that it outlives its task.
var shimSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}

// RunShim is the shim's main: args are EXITFILE PROGRAM ARGS... It returns
// the exit code to end with when the task exited; when a signal ended the
// task it ends itself with that signal and does not return.
func RunShim(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "allot task shim: expected EXITFILE PROGRAM [ARGS...]")
		return 2
	}
	keeper, args, err := shimDrainArgs(args)
	var fence *shimFence
	if err == nil {
		fence, args, err = shimFenceArgs(args)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "allot task shim: %v\n", err)
		return 2
	}
	exitFile := args[0]
	// The task's processes that outlive its shell become the shim's
	// children, so that taskStatus can wait for them.
	becomeSubreaper()
	early := catchEarly() // shimearly.go
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if shimBeforeStart != nil {
		shimBeforeStart(early)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "allot task shim: %v\n", err)
		return 127
	}
	early.started(cmd.Process)
	if keeper != nil {
		go keeper.watch()
	}
	exited := make(chan struct{})
	if fence != nil {
		fence.setFencePaths(exitFile)
		fence.killAsked = early.termCaught
		if keeper != nil {
			fence.agentPID = keeper.agentPID
		}
		go fence.watch(syscall.Getpgrp(), exited)
	}
	err = cmd.Wait()
	st, sig := taskStatus(cmd.ProcessState)
	close(exited)
	if keeper != nil {
		// Everything the task wrote is in the output file before the
		// exit file says that it ended.
		st.OutputDropped, st.OutputError = keeper.finish()
	}
	write, end := true, func() {}
	if fence != nil {
		write, end = fence.record(&st)
	}
	if write {
		if werr := writeExitFile(exitFile, st); werr != nil {
			fmt.Fprintf(os.Stderr, "allot task shim: %v\n", werr)
		}
	}
	end()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintf(os.Stderr, "allot task shim: %v\n", err)
	}
	if sig != 0 {
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second) // the signal ends the process; this is a fallback
		return 128 + int(sig)
	}
	return st.ExitCode
}

// taskStatus is how the task ended, and the signal that ended it (0 for
// none), once its shell has: the shell's status, unless a signal ended
// the shell and processes of the task outlived it, as when a preemption's
// SIGTERM reaches the whole group and a shell that does not exec its
// command (dash) dies of it at once while the program it ran saves its
// checkpoint. The shim then waits for them (awaitOutlivers), and the
// task's end is the last one's: its status and its time, which is when
// the GPUs were free, not the shell's death (trial 2026-11-29b B1).
func taskStatus(ps *os.ProcessState) (ExitStatus, syscall.Signal) {
	st := ExitStatus{ExitCode: ps.ExitCode(), ExitedAt: time.Now().UTC()}
	ws, _ := ps.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		return st, 0
	}
	if last, at, ok := awaitOutlivers(syscall.Getpgrp()); ok {
		ws = last
		st = ExitStatus{ExitCode: ws.ExitStatus(), ExitedAt: at.UTC()}
		if !ws.Signaled() {
			return st, 0
		}
	}
	st.ExitCode, st.Signal = -1, signalName(ws.Signal())
	return st, ws.Signal()
}

// shimDrainArgs takes ShimDrainArg AGENTPID [ShimOutputArg OUTPUTFILE
// MAXBYTES] off the front of args, if there, and returns the keeper of
// the inherited read ends of the task's output, which are made
// close-on-exec so that the task does not inherit them too; nil without
// ShimDrainArg.
func shimDrainArgs(args []string) (k *outputKeeper, rest []string, err error) {
	if len(args) == 0 || args[0] != ShimDrainArg {
		return nil, args, nil
	}
	if len(args) < 4 {
		return nil, nil, fmt.Errorf("expected %s AGENTPID EXITFILE PROGRAM [ARGS...]", ShimDrainArg)
	}
	k = &outputKeeper{}
	k.agentPID, err = strconv.Atoi(args[1])
	if err != nil || k.agentPID <= 0 {
		return nil, nil, fmt.Errorf("%s: expected the agent's process id, got %q", ShimDrainArg, args[1])
	}
	args = args[2:]
	if args[0] == ShimOutputArg {
		if len(args) < 5 || args[1] == "" {
			return nil, nil, fmt.Errorf("expected %s OUTPUTFILE MAXBYTES EXITFILE PROGRAM [ARGS...]", ShimOutputArg)
		}
		k.maxBytes, err = strconv.ParseInt(args[2], 10, 64)
		if err != nil || k.maxBytes <= 0 {
			return nil, nil, fmt.Errorf("%s: expected the output file's cap in bytes, got %q", ShimOutputArg, args[2])
		}
		k.path, args = args[1], args[3:]
	}
	for fd := 3; fd <= 4; fd++ {
		syscall.CloseOnExec(fd)
		k.outputs = append(k.outputs, os.NewFile(uintptr(fd), "task output "+strconv.Itoa(fd)))
	}
	return k, args, nil
}

// signalName names a signal as Result.Signal does.
func signalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(sig))
}

// writeExitFile writes st durably: a crash leaves no file or the whole one.
func writeExitFile(path string, st ExitStatus) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write exit file: %w", err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write exit file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write exit file: %w", err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
