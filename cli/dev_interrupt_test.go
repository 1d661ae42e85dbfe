//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sched/allot/client"
)

// TestDevInterrupts runs allot dev (this test binary, as TestMain has it)
// as a script does, "allot dev &" from sh, which starts it with SIGINT
// ignored: one SIGINT stops it cleanly, and a second, sent while the
// first still waits for a task that ignores its checkpoint signal (10 s
// of grace), ends it at once with status 130.
func TestDevInterrupts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a dev cluster in a process of its own")
	}
	tests := []struct {
		name string
		// hold runs a task that ignores SIGTERM, which holds the stop
		// for the grace; interrupts are sent one after the other.
		hold       bool
		interrupts int
		code       int
		want       string // in the process's stderr
	}{
		{name: "one interrupt stops it cleanly", interrupts: 1, code: 0, want: "dev cluster stopped"},
		{name: "a second interrupt stops it at once", hold: true, interrupts: 2, code: 130,
			want: "interrupt again: exiting at once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := startDevProcess(t)
			if tt.hold {
				d.holdStop(t)
			}
			for i := range tt.interrupts {
				if err := syscall.Kill(d.pid, syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
				if i == 0 && tt.interrupts > 1 {
					// The second comes while the agents wait for the
					// task to checkpoint.
					d.waitFor(t, d.stderr, "preempting the running tasks")
				}
			}
			code := <-d.exited
			if code != tt.code {
				t.Errorf("exit status %d, want %d:\n%s", code, tt.code, readFile(t, d.stderr))
			}
			if logs := readFile(t, d.stderr); !strings.Contains(logs, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, logs)
			}
		})
	}
}

// devProcess is allot dev started in the background by sh.
type devProcess struct {
	pid            int
	data, url      string
	stdout, stderr string
	exited         chan int // allot dev's exit status, as sh's wait reports it
}

func startDevProcess(t *testing.T) *devProcess {
	t.Helper()
	dir := t.TempDir()
	d := &devProcess{data: filepath.Join(dir, "dev"), stdout: filepath.Join(dir, "stdout"),
		stderr: filepath.Join(dir, "stderr"), exited: make(chan int, 1)}
	pidFile := filepath.Join(dir, "pid")
	// $0 and $@ are the command line; sh's wait returns its status.
	script := `"$0" "$@" >` + d.stdout + ` 2>` + d.stderr + ` & echo $! >` + pidFile + `; wait $!`
	sh := exec.Command("/bin/sh", "-c", script, os.Args[0], "dev", "--listen", "127.0.0.1:0", "--data", d.data)
	sh.Env = append(os.Environ(), ConfigEnv+"="+filepath.Join(dir, "credentials.json"))
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := sh.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			d.exited <- 0
		case errors.As(err, &ee):
			d.exited <- ee.ExitCode()
		default:
			d.exited <- -1
		}
	}()
	t.Cleanup(func() {
		if d.pid > 0 {
			_ = syscall.Kill(d.pid, syscall.SIGKILL)
		}
		_ = sh.Process.Kill()
	})
	d.waitFor(t, pidFile, "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	if err != nil {
		t.Fatal(err)
	}
	d.pid = pid
	m := regexp.MustCompile(`dashboard  (http://\S+)/\n`).FindStringSubmatch(d.waitFor(t, d.stdout, "Allot dev cluster is up."))
	if m == nil {
		t.Fatalf("no dashboard address in the banner:\n%s", readFile(t, d.stdout))
	}
	d.url = m[1]
	return d
}

// holdStop runs a task that ignores SIGTERM, allot dev's checkpoint
// signal, until allot dev is gone, and waits until it ignores it.
func (d *devProcess) holdStop(t *testing.T) {
	t.Helper()
	token := strings.TrimSpace(readFile(t, filepath.Join(d.data, AdminTokenFile)))
	c, err := client.New(d.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c = c.WithToken(token)
	ready := filepath.Join(filepath.Dir(d.stdout), "ready")
	// kill -0 fails once the test has reaped allot dev.
	cmd := fmt.Sprintf("trap '' TERM; touch %s; while kill -0 %d 2>/dev/null; do sleep 0.1; done", ready, d.pid)
	spec, err := json.Marshal(map[string]any{"name": "hold", "entrypoint": cmd, "resources": map[string]any{"slots": 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Submit(ctx, spec); err != nil {
		t.Fatal(err)
	}
	d.waitFor(t, ready, "")
}

// waitFor waits until file holds want and returns what it holds; it
// fails the test if allot dev exits first, or after a minute.
func (d *devProcess) waitFor(t *testing.T, file, want string) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		if b, err := os.ReadFile(file); err == nil && strings.Contains(string(b), want) {
			return string(b)
		}
		select {
		case code := <-d.exited:
			d.exited <- code
			t.Fatalf("allot dev exited (%d) before %s held %q:\n%s", code, filepath.Base(file), want, readFile(t, d.stderr))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not hold %q after a minute:\n%s", filepath.Base(file), want, readFile(t, d.stderr))
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}
