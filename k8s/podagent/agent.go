package podagent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/backstop"
)

// Config configures an Agent. Master is required; the zero values of the
// others take the defaults below.
type Config struct {
	// Master is the master's base URL, e.g. http://allot-master:8080.
	Master string
	// JoinToken registers a node the first time; the node's own
	// credential, which the master then issues, is kept in the Secret
	// CredentialsSecret and presented from then on.
	JoinToken string
	// Namespace is where the pods run and the Secret is; default
	// "default".
	Namespace string
	// CredentialsSecret names the Secret holding the nodes' credentials;
	// default "allot-k8s-agent-credentials".
	CredentialsSecret string
	// Image runs a job whose pod_spec has no container; "" refuses such
	// jobs.
	Image string
	// NodeSelector is a label selector of the nodes to register; "": all.
	NodeSelector string
	// Pool is the pool of nodes without PoolLabel; default "default".
	Pool string
	// PoolLabel is the node label whose value is the node's pool; "":
	// every node is in Pool.
	PoolLabel string
	// GPULabel is the node label naming the GPU model; default
	// nvidia.com/gpu.product (GPU feature discovery).
	GPULabel string
	// ToleratedTaints are the keys of NoSchedule and NoExecute taints
	// that leave a node offered to the master; a node with any other such
	// taint offers no GPUs. Nil: nvidia.com/gpu, which GPU nodes commonly
	// carry.
	ToleratedTaints []string
	// StartTimeout is how long a pod may stay Pending (waiting for an
	// image, a volume, the kubelet) before its attempt fails with the
	// reason it waits; default 10m.
	StartTimeout time.Duration
	// Logs reads a pod's output; default the kubelet's, through pods/log.
	Logs LogSource
	// LogWait bounds how long an exit report waits for the end of the
	// pod's log stream; default 30s.
	LogWait time.Duration
	// RequestTimeout bounds a request to the master beyond the long
	// poll's hold; default 30s.
	RequestTimeout time.Duration
	Client         *http.Client
	Logger         *slog.Logger
	// Version is sent at registration.
	Version string
	// LimitSlack is how long after an attempt's time limit the backend
	// waits for the master's kill before it stops the attempt itself
	// (timelimit.go); default backstop.Slack.
	LimitSlack time.Duration
}

func (c *Config) defaults(cs kubernetes.Interface) error {
	u, err := url.Parse(c.Master)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("master: expected an http:// or https:// URL such as http://allot-master:8080, got %q", c.Master)
	}
	if _, err := labels.Parse(c.NodeSelector); err != nil {
		return fmt.Errorf("node selector: %w", err)
	}
	set := func(s *string, d string) {
		if *s == "" {
			*s = d
		}
	}
	set(&c.Namespace, "default")
	set(&c.CredentialsSecret, "allot-k8s-agent-credentials")
	set(&c.Pool, "default")
	set(&c.GPULabel, "nvidia.com/gpu.product")
	set(&c.Version, "k8s-agent")
	if c.Logs == nil {
		c.Logs = KubeletLogs{Client: cs}
	}
	if c.ToleratedTaints == nil {
		c.ToleratedTaints = []string{string(GPUResource)}
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 10 * time.Minute
	}
	if c.LogWait <= 0 {
		c.LogWait = 30 * time.Second
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = 30 * time.Second
	}
	if c.LimitSlack <= 0 {
		c.LimitSlack = backstop.Slack
	}
	if c.Client == nil {
		c.Client = &http.Client{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Agent is the Kubernetes execution backend: it registers the cluster's
// nodes with the master as Allot nodes and runs the attempts the master
// starts on them as pods. Create it with New and call Run once.
type Agent struct {
	cfg   Config
	cs    kubernetes.Interface
	log   *slog.Logger
	base  string
	creds *credentials
	pods  corelisters.PodLister
	nodes corelisters.NodeLister

	mu    sync.Mutex
	links map[string]*link
	atts  map[partKey]*attempt
	// finished remembers the parts this process reported ended, so that
	// a repeated start does not run one again; finOrder bounds it.
	finished map[partKey]bool
	finOrder []partKey
	wg       sync.WaitGroup
}

// partKey names one part of an attempt: a gang's task has a part on each
// of its nodes.
type partKey struct {
	node string
	id   agent.TaskID
}

// New checks the configuration.
func New(cs kubernetes.Interface, cfg Config) (*Agent, error) {
	if err := cfg.defaults(cs); err != nil {
		return nil, fmt.Errorf("k8s agent config: %w", err)
	}
	a := &Agent{cfg: cfg, cs: cs, log: cfg.Logger, base: strings.TrimRight(cfg.Master, "/"),
		links: map[string]*link{}, atts: map[partKey]*attempt{}, finished: map[partKey]bool{}}
	a.creds = &credentials{cs: cs, namespace: cfg.Namespace, name: cfg.CredentialsSecret}
	return a, nil
}

// Run adopts the pods a previous process left, then registers the nodes
// and serves the master until ctx ends. Pods keep running when it
// returns: the next process adopts them by their labels.
func (a *Agent) Run(ctx context.Context) error {
	if err := a.creds.load(ctx); err != nil {
		return err
	}
	podInf := informers.NewSharedInformerFactoryWithOptions(a.cs, 0, informers.WithNamespace(a.cfg.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = LabelManagedBy + "=" + ManagedBy }))
	nodeInf := informers.NewSharedInformerFactoryWithOptions(a.cs, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = a.cfg.NodeSelector }))
	pods := podInf.Core().V1().Pods()
	a.pods = pods.Lister()
	nodes := nodeInf.Core().V1().Nodes()
	nodes.Informer() // registered before Start
	a.nodes = nodes.Lister()
	podInf.Start(ctx.Done())
	nodeInf.Start(ctx.Done())
	defer podInf.Shutdown()
	defer nodeInf.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), pods.Informer().HasSynced, nodes.Informer().HasSynced) {
		return fmt.Errorf("k8s agent: informers did not sync: %w", ctx.Err())
	}
	// Adopted before any node registers, so that each registration lists
	// what runs on its node.
	all, err := a.pods.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list pods: %w", err)
	}
	for _, p := range all {
		a.adopt(ctx, p)
	}
	if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { a.podChanged(ctx, o) },
		UpdateFunc: func(_, o any) { a.podChanged(ctx, o) },
		DeleteFunc: func(o any) { a.podDeleted(o) },
	}); err != nil {
		return fmt.Errorf("watch pods: %w", err)
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { a.nodeChanged(ctx, o) },
		UpdateFunc: func(_, o any) { a.nodeChanged(ctx, o) },
		DeleteFunc: func(o any) { a.nodeDeleted(o) },
	}); err != nil {
		return fmt.Errorf("watch nodes: %w", err)
	}
	<-ctx.Done()
	a.mu.Lock()
	links := make([]*link, 0, len(a.links))
	for _, l := range a.links {
		l.stop()
		links = append(links, l)
	}
	a.mu.Unlock()
	for _, l := range links {
		<-l.done
	}
	a.wg.Wait()
	return nil
}

// nodeChanged starts the link of a new node, or updates its registration.
func (a *Agent) nodeChanged(ctx context.Context, o any) {
	n, ok := o.(*v1.Node)
	if !ok {
		return
	}
	if err := auth.CheckName("node name", n.Name); err != nil {
		a.log.Warn("node left out: its name cannot be an Allot node's", "node", n.Name, "err", err)
		return
	}
	reg := a.registration(n)
	a.mu.Lock()
	l := a.links[n.Name]
	if l == nil {
		lctx, stop := context.WithCancel(ctx)
		l = &link{a: a, name: n.Name, stop: stop, done: make(chan struct{}), kick: make(chan struct{}, 1),
			limitsHeard: make(chan struct{}, 1), waitS: 30}
		a.links[n.Name] = l
		a.mu.Unlock()
		l.setReg(reg)
		go l.run(lctx)
		a.reobserve(ctx, n.Name)
		return
	}
	a.mu.Unlock()
	if l.setReg(reg) {
		if why := a.unavailable(n); why != "" {
			a.log.Info("node unavailable: offering the master no GPUs; running pods go on", "node", n.Name, "why", why)
		} else {
			a.log.Info("node registration changed", "node", n.Name, "gpus", len(reg.GPUs), "pool", reg.Pool)
		}
	}
}

// nodeDeleted stops the node's link; the master ends what ran there as
// lost once the node stops syncing.
func (a *Agent) nodeDeleted(o any) {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	n, ok := o.(*v1.Node)
	if !ok {
		return
	}
	a.mu.Lock()
	l := a.links[n.Name]
	delete(a.links, n.Name)
	a.mu.Unlock()
	if l != nil {
		l.stop()
		a.log.Info("node deleted; no longer registered", "node", n.Name)
	}
}

// registration describes a node to the master: its allocatable GPUs,
// numbered 0..N-1 (the device plugin picks the devices), of the type its
// GPU label names; none while the node is unavailable.
func (a *Agent) registration(n *v1.Node) api.Register {
	gpus := 0
	if q, ok := n.Status.Allocatable[GPUResource]; ok {
		gpus = int(q.Value())
	}
	typ := "unknown" // as agent.GPUType names a model it cannot read
	if model := n.Labels[a.cfg.GPULabel]; model != "" {
		typ = agent.GPUType(model)
	}
	pool := a.cfg.Pool
	if v := n.Labels[a.cfg.PoolLabel]; a.cfg.PoolLabel != "" && v != "" {
		pool = v
	}
	if why := a.unavailable(n); why != "" {
		// The protocol has no drain an agent may ask for; a node that
		// offers no GPUs gets no new task, and the master keeps counting
		// those running there as holding theirs (it never shows a node
		// smaller than its running tasks), so they run on.
		gpus = 0
	}
	reg := api.Register{Name: n.Name, Pool: pool, GPUs: make([]api.GPU, gpus), Version: a.cfg.Version}
	for i := range reg.GPUs {
		reg.GPUs[i] = api.GPU{Index: i, UUID: fmt.Sprintf("k8s-%s-%d", n.Name, i), Name: n.Labels[a.cfg.GPULabel], Type: typ}
	}
	return reg
}

// runningLocked lists the node's attempts whose exit the master has not
// been told of; a.mu held.
func (a *Agent) runningLocked(node string) []agent.TaskID {
	ids := []agent.TaskID{}
	for k, att := range a.atts {
		if k.node == node && !att.queued {
			ids = append(ids, k.id)
		}
	}
	sortIDs(ids)
	return ids
}

// errNoLink is an attempt whose node is not registered (any more).
var errNoLink = errors.New("the node is not registered")
