package k8s

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// LeaderElection configures the Lease that lets one of several replicas
// schedule. Replicas that do not hold it keep their informers warm and
// write nothing.
type LeaderElection struct {
	// Enabled turns election on; off, the scheduler schedules at once,
	// and running two replicas would have both bind.
	Enabled bool
	// Namespace and Name locate the coordination.k8s.io Lease; an empty
	// Name is the scheduler name.
	Namespace, Name string
	// Identity names this replica in the Lease and in its events; empty
	// is the host name and a random suffix.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod are client-go's
	// leader election timings: how long a Lease holds without renewal,
	// how long the leader tries to renew before giving up, and how often
	// replicas try.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// DefaultLeaderElection is on, with kube-scheduler's timings.
func DefaultLeaderElection() LeaderElection {
	return LeaderElection{Enabled: true, Namespace: "kube-system",
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second}
}

// identity is a replica's name for the Lease: the host name (a pod's
// name in a Deployment) and a random suffix, so two processes on one
// host differ.
func identity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "allot"
	}
	return host + "_" + string(uuid.NewUUID())
}

// elect campaigns for the Lease and schedules while holding it, until ctx
// ends (Elect).
func (s *Scheduler) elect(ctx context.Context) error {
	le := s.cfg.Leader
	if le.Name == "" {
		le.Name = s.cfg.SchedulerName
	}
	err := Elect(ctx, s.client, le, s.log, func(ctx context.Context) error {
		s.lead(ctx)
		return nil
	})
	// Elect returns without waiting for the leading loop it started;
	// taking the loop's lock waits for it, so nothing is written after Run
	// ends.
	s.leading.Lock()
	s.leading.Unlock() //nolint:staticcheck // an empty critical section is the wait
	return err
}

// Elect campaigns for the Lease le names and runs lead while holding it,
// until ctx ends. lead's context ends when the Lease is lost; a replica
// that loses it campaigns again. A lead that returns an error gives the
// Lease up (so a replica that cannot work does not keep others out) and
// campaigns again after the retry period; one that returns nil keeps
// holding it. The Lease is released when ctx ends, so another replica
// takes over within its retry period instead of waiting for the Lease to
// expire. le.Name must be set; an empty le.Identity is the host name and
// a random suffix. Elect does not wait for lead to return.
func Elect(ctx context.Context, client kubernetes.Interface, le LeaderElection, log *slog.Logger,
	lead func(context.Context) error) error {
	if le.Identity == "" {
		le.Identity = identity()
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.Namespace, Name: le.Name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: le.Identity},
	}
	where := le.Namespace + "/" + le.Name
	for ctx.Err() == nil {
		term, end := context.WithCancel(ctx)
		failed := make(chan struct{}, 1)
		elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, Name: le.Name, ReleaseOnCancel: true,
			LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					log.Info("leading", "lease", where, "identity", le.Identity)
					if err := lead(ctx); err != nil && ctx.Err() == nil {
						log.Error("giving the Lease up", "lease", where, "err", err)
						failed <- struct{}{}
						end()
					}
				},
				OnStoppedLeading: func() { log.Info("not leading", "lease", where) },
			},
		})
		if err != nil {
			end()
			return fmt.Errorf("leader election: %w", err)
		}
		elector.Run(term)
		end()
		select {
		case <-failed:
			select {
			case <-ctx.Done():
			case <-time.After(le.RetryPeriod):
			}
		default:
		}
	}
	return nil
}

// catchUp waits, as this replica becomes leader, until its informer shows
// every bound pod the API server has (a quorum read): the previous
// leader's last bindings and evictions may not have reached this replica
// yet, and a pass over a stale cache would give their GPUs away again.
func (s *Scheduler) catchUp(ctx context.Context) {
	var want []*v1.Pod
	listed := false
	_ = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if !listed {
			l, err := s.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName!="})
			if err != nil {
				s.log.Warn("catching up with the API server", "err", err)
				return false, nil
			}
			for i := range l.Items {
				if !finished(&l.Items[i]) {
					want = append(want, &l.Items[i])
				}
			}
			listed = true
		}
		want = slices.DeleteFunc(want, func(p *v1.Pod) bool { return s.seen(ctx, p) })
		return len(want) == 0, nil
	})
}

// seen reports whether the informer shows the pod as bound (and
// terminating, if it was), or the pod is gone from the API server.
func (s *Scheduler) seen(ctx context.Context, p *v1.Pod) bool {
	c, err := s.pods.Pods(p.Namespace).Get(p.Name)
	if err == nil && c.UID == p.UID {
		return c.Spec.NodeName != "" && (p.DeletionTimestamp == nil || c.DeletionTimestamp != nil)
	}
	// The cache lacks the pod or holds another of its name: if the pod
	// is gone there is nothing to wait for.
	cur, err := s.client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	return apierrors.IsNotFound(err) || (err == nil && cur.UID != p.UID)
}
