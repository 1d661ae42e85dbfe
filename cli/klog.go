package cli

import (
	"context"
	"log/slog"
	"sync/atomic"

	"k8s.io/klog/v2"
)

// client-go (leader election, informers, REST requests) logs through
// klog's process-wide logger, which klog reads without a lock. Setting it
// while a client runs is a data race, so it is set once, at init, to a
// handler that forwards to whichever logger the running Kubernetes
// command last chose (klogTo); until one does, klog's lines are dropped.
var klogDest atomic.Pointer[slog.Logger]

func init() {
	klog.SetSlogLogger(slog.New(klogForward{}))
}

// klogTo sends client-go's log lines to log from now on.
func klogTo(log *slog.Logger) { klogDest.Store(log) }

// klogForward is a slog.Handler that hands each record to klogDest's
// handler, after replaying on it the attributes and groups it was given,
// in order.
type klogForward struct {
	ops []func(slog.Handler) slog.Handler
}

func (h klogForward) target() slog.Handler {
	l := klogDest.Load()
	if l == nil {
		return nil
	}
	t := l.Handler()
	for _, op := range h.ops {
		t = op(t)
	}
	return t
}

func (h klogForward) Enabled(ctx context.Context, level slog.Level) bool {
	t := h.target()
	return t != nil && t.Enabled(ctx, level)
}

func (h klogForward) Handle(ctx context.Context, r slog.Record) error {
	if t := h.target(); t != nil {
		return t.Handle(ctx, r)
	}
	return nil
}

func (h klogForward) with(op func(slog.Handler) slog.Handler) klogForward {
	return klogForward{ops: append(h.ops[:len(h.ops):len(h.ops)], op)}
}

func (h klogForward) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.with(func(t slog.Handler) slog.Handler { return t.WithAttrs(attrs) })
}

func (h klogForward) WithGroup(name string) slog.Handler {
	return h.with(func(t slog.Handler) slog.Handler { return t.WithGroup(name) })
}
