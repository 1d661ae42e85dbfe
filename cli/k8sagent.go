package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/k8s"
	"github.com/allot-sched/allot/k8s/podagent"
	"github.com/allot-sched/allot/version"
)

type k8sAgentFlags struct {
	kubeconfig string
	joinFile   string
	cfg        podagent.Config
	leader     k8s.LeaderElection
	logLevel   string
	logFormat  string
}

func newK8sAgentCmd() *cobra.Command {
	var f k8sAgentFlags
	cmd := &cobra.Command{
		Use:   "k8s-agent",
		Short: "Run the master's tasks as pods on a Kubernetes cluster's nodes",
		Long: `Run Allot jobs on Kubernetes, the Determined way: register the cluster's
nodes with the master as Allot nodes (their allocatable nvidia.com/gpu as
slots), and run each task the master starts on one of them as a pod made
from the job's pod_spec, pinned to that node. The pod's logs go to the
master, its exit code ends the attempt, and a kill or preemption deletes
the pod gracefully (SIGTERM, then SIGKILL after the grace period). A
pod_spec's nodeSelector, required node affinity and tolerations are
checked against the node the master chose before the pod is made; a node
breaking one fails the attempt, saying why. After
a restart the pods are adopted again by their labels. Replicas elect a
leader through a Lease; only the leader runs. Inside a pod it uses the
pod's service account; elsewhere --kubeconfig or $KUBECONFIG. See
docs/kubernetes.md.`,
		Example: `  allot k8s-agent --master http://allot-master:8080 --namespace allot-jobs
  allot k8s-agent --node-selector nvidia.com/gpu.present=true --pool-label allot.dev/pool --image python:3.12`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: in-cluster service account, else $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.cfg.Namespace, "namespace", "default", "namespace of the jobs' pods and of the credentials Secret")
	fl.StringVar(&f.cfg.CredentialsSecret, "credentials-secret", "allot-k8s-agent-credentials", "Secret keeping the nodes' credentials")
	fl.StringVar(&f.cfg.Image, "image", "", "image of jobs whose pod_spec names no container (default: such jobs fail)")
	fl.StringVar(&f.cfg.NodeSelector, "node-selector", "", "label selector of the nodes to register (default: all)")
	fl.StringVar(&f.cfg.Pool, "pool", "default", "pool of nodes without the pool label")
	fl.StringVar(&f.cfg.PoolLabel, "pool-label", "", "node label whose value is the node's pool (default: every node in --pool)")
	fl.StringVar(&f.cfg.GPULabel, "gpu-label", "nvidia.com/gpu.product", "node label naming the GPU model, whose short form is the GPU type")
	fl.StringVar(&f.joinFile, "join-token-file", "", "a file with the join token for the nodes' first registration (default: $"+JoinTokenEnv+")")
	fl.StringSliceVar(&f.cfg.ToleratedTaints, "tolerated-taint", []string{"nvidia.com/gpu"}, "key of a NoSchedule or NoExecute taint that leaves a node offered to the master (repeatable); a node with another such taint, cordoned or not Ready offers no GPUs")
	fl.DurationVar(&f.cfg.StartTimeout, "start-timeout", 10*time.Minute, "how long a pod may stay Pending (image pull back-off, volumes) before its attempt fails")
	fl.DurationVar(&f.cfg.LogWait, "log-wait", 0, "how long an exit report waits for the end of the pod's log stream (default 30s)")
	f.leader = k8s.DefaultLeaderElection()
	fl.BoolVar(&f.leader.Enabled, "leader-elect", true, "run only while holding a Lease, so that several replicas can run")
	fl.StringVar(&f.leader.Namespace, "leader-elect-namespace", "", "namespace of the leader election Lease (default: --namespace)")
	fl.StringVar(&f.leader.Name, "leader-elect-name", "allot-k8s-agent", "name of the leader election Lease")
	fl.DurationVar(&f.leader.LeaseDuration, "leader-elect-lease-duration", f.leader.LeaseDuration, "how long a Lease holds without renewal")
	fl.DurationVar(&f.leader.RenewDeadline, "leader-elect-renew-deadline", f.leader.RenewDeadline, "how long the leader tries to renew before it stops")
	fl.DurationVar(&f.leader.RetryPeriod, "leader-elect-retry-period", f.leader.RetryPeriod, "how often replicas try to take or renew the Lease")
	fl.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fl.StringVar(&f.logFormat, "log-format", "text", "text or json")
	return cmd
}

func (f *k8sAgentFlags) run(cmd *cobra.Command) error {
	log, err := newLogger(cmd.ErrOrStderr(), f.logLevel, f.logFormat)
	if err != nil {
		return usageErrorf("%v", err)
	}
	master, err := masterClient(cmd, nil)
	if err != nil {
		return err
	}
	ca := flagCA(cmd)
	if f.cfg.Client, err = client.HTTPClient(ca); err != nil {
		return fmt.Errorf("--ca or %s: %w", CAEnv, err)
	}
	af := agentFlags{joinFile: f.joinFile}
	if f.cfg.JoinToken, err = af.joinToken(); err != nil {
		return err
	}
	rc, cs, err := kubeClient(f.kubeconfig)
	if err != nil {
		return err
	}
	f.cfg.Master, f.cfg.Logger, f.cfg.Version = master.Addr(), log, version.String()
	a, err := podagent.New(cs, f.cfg)
	if err != nil {
		return usageErrorf("%v", err)
	}
	ctx, stop := stopOnSignals(cmd, "its pods are left as they are; the next allot k8s-agent reconciles them")
	defer stop()
	log.Info("allot k8s-agent started", "master", f.cfg.Master, "namespace", f.cfg.Namespace, "host", rc.Host,
		"leader_elect", f.leader.Enabled)
	if !f.leader.Enabled {
		return a.Run(ctx)
	}
	if f.leader.Namespace == "" {
		f.leader.Namespace = f.cfg.Namespace
	}
	// client-go's leader election logs through klog; send it to our log.
	klogTo(log)
	return podagent.RunElected(ctx, cs, f.cfg, f.leader)
}
