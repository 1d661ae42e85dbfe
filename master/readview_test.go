package master

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// readMismatch is the first difference between a published read view and
// the mirror that any test met; TestMain fails the run on one.
var readMismatch atomic.Pointer[string]

// Every test of the package checks each release of mu against a read view
// built from the whole mirror (readview.go).
func init() {
	verifyReads = func(difference string) {
		readMismatch.CompareAndSwap(nil, &difference)
		panic(difference)
	}
}

// gateStore holds the master's next transaction open, its writes made but
// not committed, until the test says how the commit ends.
type gateStore struct {
	store.Store
	mu   sync.Mutex
	gate *commitGate
}

type commitGate struct {
	entered chan struct{}
	outcome chan error // nil commits; an error rolls back and fails the batch
}

func (s *gateStore) arm() *commitGate {
	g := &commitGate{entered: make(chan struct{}), outcome: make(chan error)}
	s.mu.Lock()
	s.gate = g
	s.mu.Unlock()
	return g
}

func (s *gateStore) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		s.mu.Lock()
		g := s.gate
		s.gate = nil
		s.mu.Unlock()
		if g == nil {
			return nil
		}
		close(g.entered)
		return <-g.outcome
	})
}

// readState is what the API shows of one job and one node.
type readState struct {
	listed, got, nodeUsed, poolUsed int // running tasks, as GET /jobs and /jobs/{id} show them; GPUs used
	state                           string
}

func (h *harness) readState(id int64, node, pool string) readState {
	h.t.Helper()
	var rs readState
	var jobs []api.Job
	h.do("GET", "/api/v1/jobs", nil, &jobs)
	for _, j := range jobs {
		if j.ID == id {
			rs.listed = j.Running
		}
	}
	j := h.job(id)
	rs.got, rs.state = j.Running, j.State
	var nodes []api.Node
	h.do("GET", "/api/v1/nodes", nil, &nodes)
	for _, n := range nodes {
		if n.Name == node {
			rs.nodeUsed = n.Used
		}
	}
	var pools []api.Pool
	h.do("GET", "/api/v1/pools", nil, &pools)
	for _, p := range pools {
		if p.Name == pool {
			rs.poolUsed = p.Used
		}
	}
	return rs
}

// TestReadsDoNotWaitForCommit: while a scheduling pass's batch waits for
// its commit, holding mu, GET /jobs, /jobs/{id}, /nodes and /pools answer
// with the last committed state, not the start in flight; once the commit
// succeeds they show the start, and after a failed commit they never
// showed it.
func TestReadsDoNotWaitForCommit(t *testing.T) {
	tests := []struct {
		name   string
		commit error
		after  readState
	}{
		{"commit succeeds", nil, readState{listed: 1, got: 1, nodeUsed: 1, poolUsed: 1, state: "running"}},
		{"commit fails", errStoreDown, readState{state: "queued"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gs := &gateStore{}
			h := newHarness(t, func(o *Options) { gs.Store = o.Store; o.Store = gs })
			h.agent("n1", 2)
			id := h.submit(jobSpec("train", 1, ""))
			pool := h.job(id).Pool
			before := readState{state: "queued"}
			if got := h.readState(id, "n1", pool); got != before {
				t.Fatalf("before the pass: %+v, want %+v", got, before)
			}
			g := gs.arm()
			done := make(chan struct{})
			go func() { h.step(); close(done) }()
			<-g.entered
			if got := h.readState(id, "n1", pool); got != before {
				t.Errorf("while the commit is held: %+v, want the committed %+v", got, before)
			}
			g.outcome <- tt.commit
			<-done
			if got := h.readState(id, "n1", pool); got != tt.after {
				t.Errorf("after the commit: %+v, want %+v", got, tt.after)
			}
		})
	}
}

// TestSamePendingFields: samePending compares every field of
// sched.Pending but Nodes and Turn (the view's turns hold the order,
// queueturns.go); a new field must be added to it.
func TestSamePendingFields(t *testing.T) {
	want := []string{"Job", "Reason", "Blocker", "Need", "Free", "At", "License", "LicenseNeed", "LicenseFree",
		"Priority", "Queued", "Turn", "Nodes"}
	typ := reflect.TypeFor[sched.Pending]()
	var got []string
	for i := range typ.NumField() {
		got = append(got, typ.Field(i).Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("sched.Pending has fields %v; samePending knows %v: compare the new ones", got, want)
	}
}

// TestPendingCountsFromRequest: an explanation's view reads the request's
// time, never its pass's, so that the read view need not keep the pass's
// time (samePending ignores it): two explanations from passes at
// different times, which samePending holds the same, render alike at one
// request time, those with a start time included, whose countdown runs
// from the request's time (the reserved reason's "to start in 9m 57s").
func TestPendingCountsFromRequest(t *testing.T) {
	req := time.Unix(4000, 0).UTC()
	for r := sched.Reason(1); r < 255; r++ {
		if strings.HasPrefix(r.String(), "reason(") {
			continue
		}
		for _, at := range []int64{-1, sched.Never, 4000 + 597} {
			t.Run(fmt.Sprintf("%s at %d", r, at), func(t *testing.T) {
				p := sched.Pending{Reason: r, Blocker: 0, Need: 2, Free: 1, At: at, License: 0, LicenseNeed: 1}
				a := &pendingInfo{p: p, now: 1000, blockerID: "7"}
				b := &pendingInfo{p: p, now: 3990, blockerID: "7"}
				if !samePending(a, b) {
					t.Fatal("samePending tells passes apart by their time")
				}
				va, vb := a.viewAt(req), b.viewAt(req)
				if !reflect.DeepEqual(va, vb) {
					t.Errorf("the view depends on the pass's time: %+v and %+v", va, vb)
				}
				if va.AsOf == nil || !va.AsOf.Equal(req) {
					t.Errorf("as_of %v, want the request's time %v", va.AsOf, req)
				}
				if r == sched.ReasonReserved && at > 0 && at != sched.Never && !strings.Contains(va.Message, "to start in 9m 57s") {
					t.Errorf("message %q does not count to the start from the request's time (9m 57s)", va.Message)
				}
			})
		}
	}
}

// TestSubmissionReadWhileLocked: a job submitted while mu is held (as
// across a batch's commit) is not yet in the mirror, but GET /jobs and
// /jobs/{id} find it, queued, without waiting for mu; once admitted it
// reads the same.
func TestSubmissionReadWhileLocked(t *testing.T) {
	h := newHarness(t)
	h.submit(jobSpec("first", 1, "")) // builds the feasibility view, which needs mu
	h.m.mu.Lock()
	id := h.submit(jobSpec("train", 1, ""))
	var jobs []api.Job
	h.do("GET", "/api/v1/jobs", nil, &jobs)
	listed := slices.ContainsFunc(jobs, func(j api.Job) bool { return j.ID == id && j.State == "queued" })
	got := h.job(id)
	h.m.mu.Unlock()
	if !listed || got.State != "queued" || got.Tasks != 1 {
		t.Errorf("while mu was held: listed %t, GET /jobs/%d %+v", listed, id, got)
	}
	h.m.lock() // admits it
	h.m.unlock()
	if again := h.job(id); !reflect.DeepEqual(again, got) {
		t.Errorf("once admitted: %+v, before %+v", again, got)
	}
}
