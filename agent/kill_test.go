package agent

import (
	"os"
	"testing"
	"time"
)

// killGrace is the grace of the tests below that wait it out; trapGrace
// that of those that must end before it, long enough for a trap to run
// on a loaded machine, and for a shim built with -race to exit (the race
// detector sleeps a second at exit).
const (
	killGrace = time.Second
	trapGrace = 5 * time.Second
)

// TestKillGrace: a kill with a grace sends SIGTERM to the group; a task
// that traps it runs its trap and ends with its own exit code before the
// grace is over, and one that ignores it is SIGKILLed at the grace's end.
// Both end killed. With and without the task shim, which must outlive
// the SIGTERM to record the exit.
func TestKillGrace(t *testing.T) {
	const loop = `echo ready; while :; do sleep 0.05; done`
	tests := []struct {
		name       string
		entrypoint string
		code       int
		signal     string
		atDeadline bool
		saved      bool
	}{
		{"trap exits 0", `trap 'echo saved; exit 0' TERM; ` + loop, 0, "", false, true},
		{"trap exits with its code", `trap 'sleep 0.2; echo saved; exit 3' TERM; ` + loop, 3, "", false, true},
		{"no trap: SIGTERM ends it", loop, -1, "SIGTERM", false, false},
		{"TERM ignored: SIGKILL at the grace's end", `trap '' TERM; ` + loop, -1, "SIGKILL", true, false},
		{"trap outlasts the grace", `trap 'sleep 30; echo saved; exit 0' TERM; ` + loop, -1, "SIGKILL", true, false},
	}
	for _, shim := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.name
			if shim {
				name += " under a shim"
			}
			t.Run(name, func(t *testing.T) {
				r, l := testRunner()
				if shim {
					r.Shim = os.Args[0]
				}
				task := start(t, r, testSpec(t, tt.entrypoint))
				l.waitFor(t, "ready", func(s string) bool { return s == "ready" })
				grace := trapGrace
				if tt.atDeadline {
					grace = killGrace
				}
				before := time.Now()
				if err := task.Kill(grace); err != nil {
					t.Fatal(err)
				}
				res := wait(t, task)
				took := time.Since(before)
				if res.Outcome != OutcomeKilled || res.ExitCode != tt.code || res.Signal != tt.signal ||
					res.KilledAtDeadline != tt.atDeadline {
					t.Errorf("result %+v, want killed, code %d, signal %q, killed at the deadline %v",
						res, tt.code, tt.signal, tt.atDeadline)
				}
				if saved := contains(l.texts(Stdout), "saved"); saved != tt.saved {
					t.Errorf("trap ran: %v, want %v (output %q)", saved, tt.saved, l.texts(""))
				}
				switch {
				case tt.atDeadline && (took < grace || took > grace+3*time.Second):
					t.Errorf("ended after %v, want at the grace's end (%v)", took, grace)
				case !tt.atDeadline && took >= grace:
					t.Errorf("ended after %v, want before the grace's end (%v)", took, grace)
				}
				if alive(task.Pid()) {
					t.Errorf("the leader %d is alive", task.Pid())
				}
			})
		}
	}
}

// TestKillGraceChildOutlivesLeader: the shell leader exits at the
// SIGTERM while a child is still saving; the child gets until the end of
// the grace, as in a preemption, and the attempt ends once it is done.
func TestKillGraceChildOutlivesLeader(t *testing.T) {
	r, l := testRunner()
	entry := `sh -c 'trap "sleep 0.3; echo saved; exit 0" TERM; echo ready; while :; do sleep 0.02; done'; echo unreachable`
	task := start(t, r, testSpec(t, entry))
	l.waitFor(t, "ready", func(s string) bool { return s == "ready" })
	before := time.Now()
	if err := task.Kill(trapGrace); err != nil {
		t.Fatal(err)
	}
	res := wait(t, task)
	if res.Outcome != OutcomeKilled || res.KilledAtDeadline || time.Since(before) >= trapGrace {
		t.Errorf("result %+v after %v", res, time.Since(before))
	}
	if out := l.texts(Stdout); !contains(out, "saved") || contains(out, "unreachable") {
		t.Errorf("output %q", out)
	}
}

// TestKillGraceBroughtForward: a kill at once after a kill with a grace
// SIGKILLs now; a later kill with a longer grace changes nothing.
func TestKillGraceBroughtForward(t *testing.T) {
	r, l := testRunner()
	task := start(t, r, testSpec(t, `trap '' TERM; echo ready; sleep 30`))
	l.waitFor(t, "ready", func(s string) bool { return s == "ready" })
	before := time.Now()
	if err := task.Kill(killGrace); err != nil {
		t.Fatal(err)
	}
	if err := task.Kill(time.Hour); err != nil {
		t.Fatal(err)
	}
	res := wait(t, task)
	if took := time.Since(before); res.Outcome != OutcomeKilled || res.Signal != "SIGKILL" || took > killGrace+3*time.Second {
		t.Errorf("result %+v after %v: a longer grace must not put the deadline back", res, took)
	}

	r, l = testRunner()
	task = start(t, r, testSpec(t, `trap '' TERM; echo ready; sleep 30`))
	l.waitFor(t, "ready", func(s string) bool { return s == "ready" })
	if err := task.Kill(time.Hour); err != nil {
		t.Fatal(err)
	}
	before = time.Now()
	if err := task.Kill(0); err != nil {
		t.Fatal(err)
	}
	res = wait(t, task)
	if took := time.Since(before); res.Outcome != OutcomeKilled || res.Signal != "SIGKILL" || res.KilledAtDeadline || took > 2*time.Second {
		t.Errorf("result %+v after %v: a kill at once must cut the grace short", res, took)
	}
}
