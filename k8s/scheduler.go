package k8s

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
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

	core  sched.Scheduler
	nodes listers.NodeLister
	pods  listers.PodLister
	// assumed are bindings made whose pods the informer still shows
	// unbound; their GPUs count as used so a pass never binds twice onto
	// the same free GPUs.
	assumed map[types.UID]string
	kick    chan struct{}
}

// New returns a scheduler for the cluster the client talks to.
func New(client kubernetes.Interface, cfg Config, log *slog.Logger) *Scheduler {
	return &Scheduler{cfg: cfg, client: client, log: log, Interval: 5 * time.Second,
		assumed: map[types.UID]string{}, kick: make(chan struct{}, 1)}
}

// Run watches the cluster and schedules until ctx ends.
func (s *Scheduler) Run(ctx context.Context) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	tick := time.NewTicker(s.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.kick:
		case <-tick.C:
		}
		if err := s.Pass(ctx); err != nil {
			s.log.Error("scheduling pass", "err", err)
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
	return nil
}

// poke asks for a pass; bursts of events collapse into one.
func (s *Scheduler) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Pass runs one scheduling pass: snapshot, plan, bind, explain.
func (s *Scheduler) Pass(ctx context.Context) error {
	nodes, err := s.nodes.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list nodes: %w", err)
	}
	pods, err := s.pods.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list pods: %w", err)
	}
	s.forgetSeen(pods)
	pass := Build(&s.cfg, nodes, pods, s.assumed, time.Now())
	binds, waits, err := Plan(&s.core, pass)
	if err != nil {
		return err
	}
	var errs []error
	for _, b := range binds {
		errs = append(errs, s.bind(ctx, b))
	}
	for _, w := range waits {
		errs = append(errs, s.explain(ctx, w))
	}
	return errors.Join(errs...)
}

// forgetSeen drops assumed bindings the informer now shows, or whose pods
// are gone.
func (s *Scheduler) forgetSeen(pods []*v1.Pod) {
	live := make(map[types.UID]bool, len(s.assumed))
	for _, p := range pods {
		if _, ok := s.assumed[p.UID]; ok && p.Spec.NodeName == "" {
			live[p.UID] = true
		}
	}
	for uid := range s.assumed {
		if !live[uid] {
			delete(s.assumed, uid)
		}
	}
}
