package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/allot-sched/allot/k8s"
	"github.com/allot-sched/allot/sched"
)

type k8sFlags struct {
	kubeconfig string
	cfg        k8s.Config
	policy     string
	placement  string
	interval   time.Duration
	minRunTime time.Duration
	projects   string
	logLevel   string
	logFormat  string
}

func newK8sSchedulerCmd() *cobra.Command {
	f := k8sFlags{cfg: k8s.DefaultConfig()}
	cmd := &cobra.Command{
		Use:   "k8s-scheduler",
		Short: "Schedule the pods of a Kubernetes cluster with Allot's scheduling core",
		Long: `Run Allot as a Kubernetes scheduler. It watches nodes and the pods whose
spec.schedulerName is --scheduler-name, plans with the same core as the
master, binds pods to nodes (a pod group all at once or not at all),
evicts the victims of preemption with a grace period to checkpoint, and
marks pods that wait with a PodScheduled=False condition and an event
carrying Allot's reason. Replicas elect a leader through a Lease; only
the leader schedules. Inside a pod it uses the pod's service account;
elsewhere --kubeconfig or $KUBECONFIG. See docs/kubernetes.md.`,
		Example: `  allot k8s-scheduler --kubeconfig ~/.kube/config
  allot k8s-scheduler --pool-label allot.dev/pool --gpu-label nvidia.com/gpu.product
  allot k8s-scheduler --policy quota --projects projects.yaml --preemption-grace 2m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: in-cluster service account, else $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.cfg.SchedulerName, "scheduler-name", f.cfg.SchedulerName, "schedule the pods whose spec.schedulerName is this")
	fl.StringVar(&f.cfg.PoolLabel, "pool-label", "", "node label whose values are pools, matched by the pods' nodeSelector (default: one pool)")
	fl.StringVar(&f.cfg.GPULabel, "gpu-label", f.cfg.GPULabel, "node label naming the GPU type")
	fl.StringSliceVar(&f.cfg.ToleratedTaints, "tolerated-taint", f.cfg.ToleratedTaints, "taint key every pod is taken to tolerate, besides its own tolerations (repeatable)")
	fl.StringVar(&f.policy, "policy", string(f.cfg.Pool.Policy), "pool policy: fifo, priority, quota or fair_share")
	fl.StringVar(&f.projects, "projects", "", "YAML file mapping namespaces to projects with quota and shares (see docs/kubernetes.md)")
	fl.BoolVar(&f.cfg.Pool.Backfill, "backfill", f.cfg.Pool.Backfill, "let smaller pods start past a blocked one")
	fl.BoolVar(&f.cfg.Pool.Preemption, "preemption", f.cfg.Pool.Preemption, "evict lower-priority pods for waiting higher-priority ones")
	fl.DurationVar(&f.cfg.PreemptionGrace, "preemption-grace", f.cfg.PreemptionGrace, "grace period an evicted pod gets to checkpoint and stop")
	fl.DurationVar(&f.minRunTime, "min-run-time", 0, "how long a pod must have run before it may be evicted (0: no minimum)")
	fl.StringVar(&f.placement, "placement", string(f.cfg.Pool.Placement), "binpack or spread")
	fl.BoolVar(&f.cfg.Leader.Enabled, "leader-elect", f.cfg.Leader.Enabled, "schedule only while holding a Lease, so that several replicas can run")
	fl.StringVar(&f.cfg.Leader.Namespace, "leader-elect-namespace", f.cfg.Leader.Namespace, "namespace of the leader election Lease")
	fl.StringVar(&f.cfg.Leader.Name, "leader-elect-name", "", "name of the leader election Lease (default: the scheduler name)")
	fl.DurationVar(&f.cfg.Leader.LeaseDuration, "leader-elect-lease-duration", f.cfg.Leader.LeaseDuration, "how long a Lease holds without renewal")
	fl.DurationVar(&f.cfg.Leader.RenewDeadline, "leader-elect-renew-deadline", f.cfg.Leader.RenewDeadline, "how long the leader tries to renew before it stops scheduling")
	fl.DurationVar(&f.cfg.Leader.RetryPeriod, "leader-elect-retry-period", f.cfg.Leader.RetryPeriod, "how often replicas try to take or renew the Lease")
	fl.DurationVar(&f.interval, "interval", 5*time.Second, "longest time between passes; changes trigger one sooner")
	fl.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fl.StringVar(&f.logFormat, "log-format", "text", "text or json")
	return cmd
}

func (f *k8sFlags) run(cmd *cobra.Command) error {
	if err := f.pool(); err != nil {
		return err
	}
	log, err := newLogger(cmd.ErrOrStderr(), f.logLevel, f.logFormat)
	if err != nil {
		return usageErrorf("%v", err)
	}
	rc, cs, err := kubeClient(f.kubeconfig)
	if err != nil {
		return err
	}
	ctx, stop := stopOnSignals(cmd, "pods already bound stay so, and the next allot k8s carries on")
	defer stop()
	// client-go's leader election logs through klog; send it to our log.
	klogTo(log)
	s := k8s.New(cs, f.cfg, log)
	s.Interval = f.interval
	if s.Dynamic, err = dynamic.NewForConfig(rc); err != nil {
		return fmt.Errorf("kubernetes dynamic client: %w", err)
	}
	log.Info("allot k8s-scheduler started", "scheduler_name", f.cfg.SchedulerName, "host", rc.Host,
		"leader_elect", f.cfg.Leader.Enabled)
	return s.Run(ctx)
}

// pool checks the policy flags and reads the projects file; only
// policies that need nothing the Kubernetes side does not map yet
// (accounts, QOS) are offered.
func (f *k8sFlags) pool() error {
	switch p := sched.Policy(f.policy); p {
	case sched.PolicyFIFO, sched.PolicyPriority, sched.PolicyQuota, sched.PolicyFairShare:
		f.cfg.Pool.Policy = p
	default:
		return usageErrorf("--policy: expected fifo, priority, quota or fair_share, got %q", f.policy)
	}
	if f.projects != "" {
		ps, err := k8s.LoadProjects(f.projects)
		if err != nil {
			return usageErrorf("--projects: %w", err)
		}
		f.cfg.Projects = ps
	}
	switch p := sched.Placement(f.placement); p {
	case sched.PlaceBinpack, sched.PlaceSpread:
		f.cfg.Pool.Placement = p
	default:
		return usageErrorf("--placement: expected binpack or spread, got %q", f.placement)
	}
	if f.interval <= 0 {
		return usageErrorf("--interval: expected a positive duration, got %v", f.interval)
	}
	if f.cfg.PreemptionGrace < 0 || f.minRunTime < 0 {
		return usageErrorf("--preemption-grace and --min-run-time: expected durations >= 0")
	}
	f.cfg.Pool.MinRunTime = int64(f.minRunTime / time.Second)
	return nil
}

// kubeClient is restConfig and a clientset made from it.
func kubeClient(path string) (*rest.Config, *kubernetes.Clientset, error) {
	rc, err := restConfig(path)
	if err != nil {
		return nil, nil, err
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return rc, cs, nil
}

// restConfig uses the named kubeconfig, else the pod's service account,
// else the usual kubeconfig rules ($KUBECONFIG, ~/.kube/config).
func restConfig(path string) (*rest.Config, error) {
	if path == "" {
		if rc, err := rest.InClusterConfig(); err == nil {
			return rc, nil
		}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubernetes client configuration: %w", err)
	}
	return rc, nil
}
