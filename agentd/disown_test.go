package agentd

import (
	"bytes"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

const (
	oldCredential = "allot_n_old"
	joinToken     = "allot_j_join"
	disownedLine  = "the master revoked this node's credential"
)

// lockedBuffer is a log sink that tests read while the agent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRevokedCredentialStopsTasks (trial 2026-11-28o F13): an agent whose
// node credential the master refuses as revoked (a join token took the
// node's name over) kills its attempt at once, preemptible or held by
// the master through a loss, with no checkpoint (its TERM trap does not
// run: the master may have run the task again from its checkpoint
// directory, which the orphan must not overwrite); it sends
// no more logs or reports, presents the credential no more, says so once,
// and tries its join token only every disownRetry while the name is
// held. A refusal that is not for good (an unknown credential) or a join
// token that wins the name back leaves the attempt running.
func TestRevokedCredentialStopsTasks(t *testing.T) {
	defer func(d time.Duration) { disownRetry = d }(disownRetry)
	disownRetry = 200 * time.Millisecond
	cases := []struct {
		name     string
		join     string // the agent's join token
		revoked  bool   // the master marks the credential's refusal revoked
		joinAns  int    // the answer to a registration with the join token; 0 lets it in
		held     bool   // the master holds the attempt through a loss (not preemptible)
		stopped  bool   // want the attempt stopped
		rejoin   bool   // want the join token tried again, spaced
		credKept bool   // want the credential file kept
	}{
		{name: "revoked, no join token", revoked: true, stopped: true, credKept: true},
		{name: "revoked, held attempt killed at once", revoked: true, held: true, stopped: true, credKept: true},
		{name: "revoked, name held by another agent", join: joinToken, revoked: true, joinAns: http.StatusConflict,
			stopped: true, rejoin: true, credKept: true},
		{name: "revoked, join token refused", join: joinToken, revoked: true, joinAns: http.StatusUnauthorized,
			stopped: true, credKept: true},
		{name: "revoked, join token wins the name back", join: joinToken, revoked: true, credKept: true},
		{name: "unknown credential, no join token", credKept: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fm, r, s, logs := runRefusedTask(t, tc.join, tc.held)
			credFile := filepath.Join(r.a.cfg.WorkDir, CredentialFileName)
			pid := readPid(t, filepath.Join(s.WorkDir, "pid"))
			defer killGroup(pid)

			refusedAt := time.Now()
			fm.set(func(fm *fakeMaster) {
				fm.authorize = func(bearer, path string) (int, bool) {
					switch {
					case bearer == oldCredential:
						return http.StatusUnauthorized, tc.revoked
					case bearer == joinToken && strings.HasSuffix(path, "/register"):
						return tc.joinAns, false
					}
					return 0, false
				}
			})
			if tc.stopped {
				groupGone(t, pid)
			} else {
				fm.waitFor("refusals or a new registration", func(fm *fakeMaster) bool {
					return len(fm.registers) > 1 || refusals(fm, refusedAt) >= 5
				})
				if !groupLive(t, pid) {
					t.Fatal("the attempt was stopped, want it running")
				}
			}
			if _, err := os.Stat(filepath.Join(s.WorkDir, "ckpt")); err == nil {
				t.Error("the attempt checkpointed, want it killed at once (or left running)")
			}
			if n := strings.Count(logs.String(), disownedLine); (n == 1) != tc.stopped || n > 1 {
				t.Errorf("%q logged %d times, want once when stopped, else never", disownedLine, n)
			}
			if _, err := os.Stat(credFile); (err == nil) != tc.credKept {
				t.Errorf("credential file kept: %v, want %v", err == nil, tc.credKept)
			}
			if tc.stopped {
				checkDisowned(t, fm, r, s.ID(), refusedAt, tc.rejoin)
			}
		})
	}
}

// runRefusedTask starts an agent (with join token join, "" for none)
// whose work directory holds the node credential oldCredential, and a
// task with a TERM trap that checkpoints, held by the master through a
// loss when held; it returns once the master has heard the task runs.
func runRefusedTask(t *testing.T, join string, held bool) (*fakeMaster, *running, *agent.TaskSpec, *lockedBuffer) {
	t.Helper()
	fm := newFakeMaster(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, CredentialFileName), []byte(oldCredential+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := spec(0, 1, `echo $$ > pid; trap 'echo checkpointed; echo done > ckpt; exit 0' TERM; while :; do sleep 0.05; done`, 0)
	s.WorkDir = filepath.Join(dir, "task")
	fence := &api.Fence{AgentTimeoutMS: 600_000, LostNodeGraceMS: 600_000, GraceS: 20}
	if held {
		fence.Held = []agent.TaskID{s.ID()}
	}
	fm.set(func(fm *fakeMaster) { fm.fence = fence })
	logs := &lockedBuffer{}
	cfg := testConfig(t, fm, dir)
	cfg.JoinToken = join
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r := startAgent(t, cfg)
	fm.waitFor("registration", func(fm *fakeMaster) bool { return fm.known })
	fm.send(startCmd(s))
	fm.waitFor("the running report and a sync after it", func(fm *fakeMaster) bool {
		return len(fm.reportsFor(s.ID())) > 0 && len(fm.syncs) > 2
	})
	return fm, r, s, logs
}

// checkDisowned checks what a disowned agent sends: no log line and no
// report of the stopped attempt, the revoked credential no more than the
// few requests in flight when the refusal came, and join token tries
// (when rejoin) at least disownRetry apart; and that it runs on, idle,
// while its join token may win the node back, else exits with an error
// that says how to bring it back (trial r R13).
func checkDisowned(t *testing.T, fm *fakeMaster, r *running, id agent.TaskID, refusedAt time.Time, rejoin bool) {
	t.Helper()
	if rejoin {
		fm.waitFor("three tries of the join token", func(fm *fakeMaster) bool { return len(joinTries(fm)) >= 3 })
	} else {
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Fatal("Run has not returned, want the agent to exit: no join token can bring the node back")
		}
		if r.err == nil || !strings.Contains(r.err.Error(), "can never hold the node again") ||
			!strings.Contains(r.err.Error(), "allot token create --join") {
			t.Errorf("Run returned %v, want the error saying the node is lost for good and how to bring it back", r.err)
		}
		r.err = nil                // checked: the cleanup's stop returns it again
		time.Sleep(5 * fm.holdCap) // time for a request after the exit to show
	}
	fm.locked(func(fm *fakeMaster) {
		if fm.hasLine(id, "checkpointed") {
			t.Errorf("the stopped attempt's output reached the master: %q", fm.logText(id))
		}
		if rep, ok := fm.exitOf(id); ok {
			t.Errorf("exit report %+v sent after the refusal", rep)
		}
		if n := refusals(fm, refusedAt); n > 4 {
			t.Errorf("%d requests presented the revoked credential, want the few in flight at the refusal", n)
		}
		tries := joinTries(fm)
		if !rejoin && len(tries) > 1 {
			t.Errorf("%d tries of the join token, want at most the one at the refusal", len(tries))
		}
		for i := 1; i < len(tries); i++ {
			if gap := tries[i].Sub(tries[i-1]); gap < disownRetry {
				t.Errorf("join token tries %s apart, want at least %s", gap, disownRetry)
			}
		}
		for _, s := range fm.syncs {
			if s.Leaving {
				t.Errorf("a sync said the node leaves: %+v", s)
			}
		}
	})
	if !rejoin {
		return
	}
	select {
	case <-r.done:
		t.Fatalf("Run returned %v, want the agent to stay up while its join token may win the node back", r.err)
	default:
	}
}

// refusals counts the requests since since that presented the old
// credential. Callers hold the fake's lock.
func refusals(fm *fakeMaster, since time.Time) int {
	n := 0
	for _, q := range fm.requests {
		if q.bearer == oldCredential && !q.at.Before(since) {
			n++
		}
	}
	return n
}

// joinTries returns when each registration with the join token came.
// Callers hold the fake's lock.
func joinTries(fm *fakeMaster) []time.Time {
	var at []time.Time
	for _, q := range fm.requests {
		if q.bearer == joinToken && strings.HasSuffix(q.path, "/register") {
			at = append(at, q.at)
		}
	}
	return at
}
