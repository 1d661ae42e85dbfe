package storetest

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/allot-sched/allot/store"
)

// Flaky is a store that fails every write while Down is set, as a
// database that restarts or a full disk would; reads go through. Tests of
// what the master and its agents do in a store outage wrap a real store
// in it.
type Flaky struct {
	store.Store
	Down atomic.Bool
}

// ErrDown is the error of a write while the store is down.
var ErrDown = errors.New("store is down")

func (s *Flaky) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	if s.Down.Load() {
		return ErrDown
	}
	return s.Store.Update(ctx, fn)
}

func (s *Flaky) TransitionTask(ctx context.Context, t store.TaskTransition) (store.Task, error) {
	if s.Down.Load() {
		return store.Task{}, ErrDown
	}
	return s.Store.TransitionTask(ctx, t)
}

func (s *Flaky) CreateJob(ctx context.Context, j store.Job, ts []store.Task) (store.Job, error) {
	if s.Down.Load() {
		return store.Job{}, ErrDown
	}
	return s.Store.CreateJob(ctx, j, ts)
}

func (s *Flaky) Heartbeat(ctx context.Context, name string, at time.Time) error {
	if s.Down.Load() {
		return ErrDown
	}
	return s.Store.Heartbeat(ctx, name, at)
}

func (s *Flaky) SetNodeState(ctx context.Context, name string, from, to store.NodeState, at time.Time) error {
	if s.Down.Load() {
		return ErrDown
	}
	return s.Store.SetNodeState(ctx, name, from, to, at)
}

func (s *Flaky) Ping(ctx context.Context, at time.Time) error {
	if s.Down.Load() {
		return ErrDown
	}
	return s.Store.Ping(ctx, at)
}
