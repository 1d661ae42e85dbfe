package podagent

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// limitEnv is a backend with one node's link and one attempt running as
// pod "p1", on a fake API server.
type limitEnv struct {
	a   *Agent
	l   *link
	att *attempt
	id  agent.TaskID
	cs  *fake.Clientset
}

func newLimitEnv(t *testing.T) *limitEnv {
	t.Helper()
	id := agent.TaskID{JobID: "7", TaskIndex: 0, Attempt: 1}
	cs := fake.NewClientset(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p1", Namespace: "ns"}})
	a := &Agent{cfg: Config{Namespace: "ns", LimitSlack: 5 * time.Second}, cs: cs, log: slog.New(slog.DiscardHandler),
		links: map[string]*link{}, atts: map[partKey]*attempt{}, finished: map[partKey]bool{}}
	l := &link{a: a, name: "n1", kick: make(chan struct{}, 1), limitsHeard: make(chan struct{}, 1)}
	a.links["n1"] = l
	att := &attempt{key: partKey{node: "n1", id: id}, pod: "p1"}
	a.atts[att.key] = att
	return &limitEnv{a: a, l: l, att: att, id: id, cs: cs}
}

func TestLimitDue(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	limit := func(id agent.TaskID, left time.Duration) []api.TimeLimit {
		return []api.TimeLimit{{Task: id, LimitS: 3600, Deadline: t0.Add(left), LeftMS: left.Milliseconds()}}
	}
	for _, tc := range []struct {
		name     string
		left     time.Duration // from t0 until the deadline
		other    bool          // the limit is another attempt's
		stop     string        // the master's stop already under way
		now      time.Duration // after t0
		wantDue  bool
		wantNext time.Duration // after t0; 0 for none
	}{
		{name: "before its deadline", left: time.Minute, now: 0, wantNext: time.Minute + 5*time.Second},
		{name: "within the slack", left: time.Minute, now: time.Minute + 4*time.Second, wantNext: time.Minute + 5*time.Second},
		{name: "past the slack", left: time.Minute, now: time.Minute + 5*time.Second, wantDue: true},
		{name: "past at the reply", left: -time.Hour, now: 5 * time.Second, wantDue: true},
		{name: "the master stops it", left: -time.Hour, now: time.Hour, stop: api.CommandKill},
		{name: "no limit for it", left: -time.Hour, now: time.Hour, other: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newLimitEnv(t)
			id := e.id
			if tc.other {
				id.Attempt++
			}
			e.att.stop = tc.stop
			e.l.limits.Heard(t0, limit(id, tc.left), true)
			due, next := e.l.dueLimits(t0.Add(tc.now))
			if got := len(due) == 1; got != tc.wantDue {
				t.Fatalf("due = %d attempts, want due %v", len(due), tc.wantDue)
			}
			wantNext := time.Time{}
			if tc.wantNext != 0 {
				wantNext = t0.Add(tc.wantNext)
			}
			if !next.Equal(wantNext) {
				t.Errorf("next = %v, want %v", next, wantNext)
			}
			if tc.wantDue {
				if e.att.stop != api.CommandKill || !strings.Contains(e.att.limited, "time limit of 1h") {
					t.Errorf("attempt stop %q note %q, want a kill at its limit", e.att.stop, e.att.limited)
				}
				if again, _ := e.l.dueLimits(t0.Add(tc.now)); len(again) != 0 {
					t.Errorf("due again: %d attempts", len(again))
				}
			}
		})
	}
}

// TestLimitStopReports: the backend deletes the pod, marked so that a
// restarted backend knows why, and the exit report says that it stopped
// the attempt at its limit, to a master that knows the field only.
func TestLimitStopReports(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known bool // the master sent time limits since the registration
	}{{"master knows the field", true}, {"older master", false}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newLimitEnv(t)
			ls := []api.TimeLimit{{Task: e.id, LimitS: 60, LeftMS: -10_000}}
			if !tc.known {
				ls = nil
				e.att.stop, e.att.limited = api.CommandKill, "stopped by the agent at its time limit of 1m"
			}
			e.l.limits.Heard(time.Now(), ls, true)
			if tc.known {
				due, _ := e.l.dueLimits(time.Now())
				if len(due) != 1 || !e.a.limitStop(context.Background(), due[0]) {
					t.Fatalf("due %d, or the stop failed", len(due))
				}
				if _, err := e.cs.CoreV1().Pods("ns").Get(context.Background(), "p1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					t.Fatalf("pod still there (err %v), want it deleted", err)
				}
				patched := false
				for _, act := range e.cs.Actions() {
					if act.GetVerb() == "patch" {
						patch := string(act.(interface{ GetPatch() []byte }).GetPatch())
						patched = strings.Contains(patch, AnnotationLimited) && strings.Contains(patch, `"`+AnnotationStop+`":"kill"`)
					}
				}
				if !patched {
					t.Errorf("pod not marked before its delete: %v", e.cs.Actions())
				}
			}
			e.a.finish(e.att, api.Report{Task: e.id, Event: api.EventExited, Outcome: string(agent.OutcomeFailed)})
			e.a.wg.Wait()
			e.a.mu.Lock()
			defer e.a.mu.Unlock()
			reps := e.a.links["n1"].pending
			if len(reps) != 1 {
				t.Fatalf("reports %+v, want the exit", reps)
			}
			sent := forMaster(e.l)
			if reps[0].Outcome != string(agent.OutcomeKilled) || !strings.Contains(reps[0].Error, "stopped by the agent at its time limit") {
				t.Errorf("report %+v, want killed at its limit", reps[0])
			}
			if sent[0].StoppedAtLimit != tc.known {
				t.Errorf("stopped_at_limit sent = %v, want %v", sent[0].StoppedAtLimit, tc.known)
			}
		})
	}
}

// forMaster is the reports the link's next sync sends. a.mu held.
func forMaster(l *link) []api.Report {
	s := l.syncBodyLocked(0)
	return s.Reports
}

// TestAdoptKeepsLimitNote: a pod the previous process stopped at its
// limit ends reported so after a restart.
func TestAdoptKeepsLimitNote(t *testing.T) {
	e := newLimitEnv(t)
	delete(e.a.atts, e.att.key)
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p1", Namespace: "ns",
		Labels:      map[string]string{LabelManagedBy: ManagedBy, LabelNode: "n1", LabelJob: "7", LabelTask: "0", LabelAttempt: "1", LabelRank: "0"},
		Annotations: map[string]string{AnnotationStop: api.CommandKill, AnnotationLimited: "stopped by the agent at its time limit of 1m"}}}
	delete(e.a.links, "n1") // adopted before the node registers
	e.a.adopt(context.Background(), p)
	att := e.a.atts[partKey{node: "n1", id: e.id}]
	if att == nil || att.stop != api.CommandKill || att.limited == "" {
		t.Fatalf("adopted %+v, want the kill at the limit kept", att)
	}
}
