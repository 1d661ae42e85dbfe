package k8s

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/allot-sched/allot/sched"
)

// Scheduler runs Allot's scheduling core over a Kubernetes cluster.
type Scheduler struct {
	cfg    Config
	client kubernetes.Interface
	log    *slog.Logger
	// Interval is the longest time between passes; any node or pod change
	// triggers one sooner.
	Interval time.Duration

	// Dynamic, when set before Run, reads PodGroup objects (podgroup.go).
	Dynamic dynamic.Interface

	core      sched.Scheduler
	nodes     listers.NodeLister
	pods      listers.PodLister
	podGroups cache.GenericLister
	// inFlight holds bindings made whose pods the informer still shows
	// unbound, so a pass never binds twice onto the same free GPUs, and
	// evictions asked for, so a pod is never evicted twice and its GPUs
	// stay held until it is gone.
	inFlight InFlight
	kick     chan struct{}
	leading  sync.Mutex
}

// New returns a scheduler for the cluster the client talks to.
func New(client kubernetes.Interface, cfg Config, log *slog.Logger) *Scheduler {
	if cfg.Pool.Policy == sched.PolicyQuota {
		// A quota pool gives a project its quota back by preemption, as
		// the master's quota pools always do.
		cfg.Pool.Preemption = true
	}
	if cfg.Leader.Identity == "" {
		cfg.Leader.Identity = identity()
	}
	return &Scheduler{cfg: cfg, client: client, log: log, Interval: 5 * time.Second,
		inFlight: InFlight{Bound: map[types.UID]string{}, Evicted: map[types.UID]bool{}},
		kick:     make(chan struct{}, 1)}
}

// Run watches the cluster and schedules until ctx ends: at once, or
// while this replica holds the Lease when leader election is on.
func (s *Scheduler) Run(ctx context.Context) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	if s.cfg.Leader.Enabled {
		return s.elect(ctx)
	}
	s.lead(ctx)
	return nil
}

// lead schedules until ctx ends. It holds s.leading throughout, so that a
// replica that lost the Lease and won it back never runs two loops.
func (s *Scheduler) lead(ctx context.Context) {
	s.leading.Lock()
	defer s.leading.Unlock()
	s.catchUp(ctx)
	tick := time.NewTicker(s.Interval)
	defer tick.Stop()
	for ctx.Err() == nil {
		if err := s.Pass(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("scheduling pass", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-s.kick:
		case <-tick.C:
		}
	}
}

// start begins the informers and waits for their caches.
func (s *Scheduler) start(ctx context.Context) error {
	f := informers.NewSharedInformerFactory(s.client, 0)
	nodes, pods := f.Core().V1().Nodes(), f.Core().V1().Pods()
	s.nodes, s.pods = nodes.Lister(), pods.Lister()
	h := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { s.poke() },
		UpdateFunc: func(any, any) { s.poke() },
		DeleteFunc: func(any) { s.poke() },
	}
	for _, inf := range []cache.SharedIndexInformer{nodes.Informer(), pods.Informer()} {
		if _, err := inf.AddEventHandler(h); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer cache for %v did not sync", typ)
		}
	}
	return s.watchPodGroups(ctx, h)
}

// poke asks for a pass; bursts of events collapse into one.
func (s *Scheduler) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Pass runs one scheduling pass: snapshot, plan, evict, bind, explain.
func (s *Scheduler) Pass(ctx context.Context) error {
	nodes, err := s.nodes.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list nodes: %w", err)
	}
	pods, err := s.pods.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list pods: %w", err)
	}
	groups, err := s.listPodGroups()
	if err != nil {
		return err
	}
	s.forgetSeen(pods)
	pass := Build(&s.cfg, Cluster{Nodes: nodes, Pods: pods, PodGroups: groups}, s.inFlight, time.Now())
	act, err := Plan(&s.core, pass)
	if err != nil {
		return err
	}
	var errs []error
	refused := map[string]string{}
	for _, e := range act.Evicts {
		err := s.evict(ctx, e)
		if apierrors.IsTooManyRequests(err) {
			// A disruption budget said no: the waiting pods say why, and
			// the next pass tries again.
			refused[e.For] = fmt.Sprintf("waiting for pod %s to be evicted: %s", podKey(e.Pod), statusMessage(err))
			continue
		}
		errs = append(errs, err)
	}
	for _, b := range act.Binds {
		errs = append(errs, s.bind(ctx, b))
	}
	for _, w := range act.Waits {
		if msg, ok := refused[jobKey(w.Pod)]; ok {
			w.Message = msg
		}
		errs = append(errs, s.explain(ctx, w))
	}
	return errors.Join(errs...)
}

// forgetSeen drops bindings the informer now shows, or whose pods are
// gone, and evictions whose pods the informer shows terminating or gone.
func (s *Scheduler) forgetSeen(pods []*v1.Pod) {
	bound := make(map[types.UID]bool, len(s.inFlight.Bound))
	evicted := make(map[types.UID]bool, len(s.inFlight.Evicted))
	for _, p := range pods {
		if _, ok := s.inFlight.Bound[p.UID]; ok && p.Spec.NodeName == "" {
			bound[p.UID] = true
		}
		if s.inFlight.Evicted[p.UID] && p.DeletionTimestamp == nil {
			evicted[p.UID] = true
		}
	}
	for uid := range s.inFlight.Bound {
		if !bound[uid] {
			delete(s.inFlight.Bound, uid)
		}
	}
	for uid := range s.inFlight.Evicted {
		if !evicted[uid] {
			delete(s.inFlight.Evicted, uid)
		}
	}
}

// statusMessage is the API server's message in err, without the wrapping.
func statusMessage(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return st.Status().Message
	}
	return err.Error()
}
