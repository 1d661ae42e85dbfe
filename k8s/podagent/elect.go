package podagent

import (
	"context"
	"log/slog"
	"sync"

	"k8s.io/client-go/kubernetes"

	"github.com/allot-sched/allot/k8s"
)

// RunElected runs the backend in one of several replicas: the one holding
// the Lease le names (k8s.Elect) runs an Agent, made afresh for each term
// so that it adopts the pods and registers the nodes as a restarted
// process does; the others wait. A replica that loses the Lease stops
// syncing, leaving the pods to the next leader, which adopts them by
// their labels. Replicas keep no informers warm while they wait: a new
// leader lists the pods and nodes first.
func RunElected(ctx context.Context, cs kubernetes.Interface, cfg Config, le k8s.LeaderElection) error {
	if _, err := New(cs, cfg); err != nil {
		return err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	// A term's Agent runs until its context ends; the next term waits for
	// it, so that two Agents never serve the master at once in one process.
	var term sync.Mutex
	err := k8s.Elect(ctx, cs, le, log, func(ctx context.Context) error {
		term.Lock()
		defer term.Unlock()
		a, err := New(cs, cfg)
		if err != nil {
			return err
		}
		return a.Run(ctx)
	})
	term.Lock()
	term.Unlock() //nolint:staticcheck // an empty critical section is the wait
	return err
}
