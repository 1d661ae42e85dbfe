package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// markerEnv names the variable that tags every process of one test
// cluster, tasks included: agents pass their environment on to tasks.
const markerEnv = "E2E_CLUSTER"

// proc is a daemon the test started: a master, an agent or `allot dev`.
// It leads its own process group.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed when the process has exited
	// Set before done is closed.
	exitCode int
	stopped  bool // the test stopped or killed it on purpose
	mu       sync.Mutex
}

// startProc starts bin with args in dir, its stdout and stderr appended to
// logPath, with env added to the test's environment.
func startProc(name, dir, logPath string, env []string, args ...string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bins.allot, args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		logf.Close()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode() // -1 when killed by a signal
		} else if err != nil {
			code = -2
		}
		p.mu.Lock()
		p.exitCode = code
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// cleanEnv is the test's environment without the variables the harness
// sets itself.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ALLOT_") || k == markerEnv {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill9 SIGKILLs the process alone (not its group), as a crash would, and
// waits for it to be gone.
func (p *proc) kill9(t *testing.T) {
	t.Helper()
	p.setStopped()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil && !p.exited() {
		t.Fatalf("kill -9 %s: %v", p.name, err)
	}
	<-p.done
}

func (p *proc) setStopped() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}

// interrupt stops the process with SIGINT on purpose, as Ctrl-C would,
// and returns its exit code.
func (p *proc) interrupt(t *testing.T) int {
	t.Helper()
	p.setStopped()
	code, err := p.stop(syscall.SIGINT, stopTimeout)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// stop sends sig and waits up to timeout for the exit; it returns the exit
// code, or an error when the process did not exit in time.
func (p *proc) stop(sig syscall.Signal, timeout time.Duration) (int, error) {
	if !p.exited() {
		if err := p.cmd.Process.Signal(sig); err != nil && !p.exited() {
			return 0, fmt.Errorf("signal %s: %w", p.name, err)
		}
	}
	select {
	case <-p.done:
	case <-time.After(timeout):
		return 0, fmt.Errorf("%s did not exit within %s of %s", p.name, timeout, sig)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitCode, nil
}

// killGroup SIGKILLs the process's whole group.
func (p *proc) killGroup() {
	syscall.Kill(-p.pid(), syscall.SIGKILL)
}

// log is everything the process wrote so far.
func (p *proc) log() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return "(log unreadable: " + err.Error() + ")"
	}
	return string(b)
}

// findProcs lists the live processes whose environment holds every one
// of the KEY=VALUE entries. Zombies have no environment and are not
// listed: they run nothing.
func findProcs(entries ...string) []int {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || len(env) == 0 {
			continue
		}
		vars := bytes.Split(env, []byte{0})
		all := true
		for _, e := range entries {
			found := false
			for _, v := range vars {
				if string(v) == e {
					found = true
					break
				}
			}
			all = all && found
		}
		if all {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sweep SIGKILLs every process carrying the marker, with its group, until
// none is left or ctx ends; it returns what it found the first time.
func sweep(ctx context.Context, marker string) []int {
	first := findProcs(markerEnv + "=" + marker)
	for pids := first; len(pids) > 0; pids = findProcs(markerEnv + "=" + marker) {
		for _, pid := range pids {
			if pgid, err := syscall.Getpgid(pid); err == nil && pgid > 1 {
				syscall.Kill(-pgid, syscall.SIGKILL)
			}
			syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-ctx.Done():
			return first
		case <-time.After(50 * time.Millisecond):
		}
	}
	return first
}

// describeProcs names processes by their command lines, for messages.
func describeProcs(pids []int) string {
	var out []string
	for _, pid := range pids {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		out = append(out, fmt.Sprintf("%d %q", pid, strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))))
	}
	return strings.Join(out, "; ")
}

// tail is the end of a long text, for failure messages.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
