package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/allot-sched/allot/k8s/k8sdev"
	"github.com/allot-sched/allot/k8s/localapi"
)

type k8sDevFlags struct {
	opts     k8sdev.Options
	sample   bool
	schedule bool
	logLevel string
	ports    k8sDevPorts
}

func newK8sDevCmd() *cobra.Command {
	f := k8sDevFlags{opts: k8sdev.Options{Nodes: 2, GPUs: 8, Type: "dev-gpu"}}
	cmd := &cobra.Command{
		Use:   "k8s-dev",
		Short: "Try allot k8s-scheduler without a cluster: a throwaway kube-apiserver with fake GPU nodes",
		Long: `Start etcd and a kube-apiserver (from scripts/k8s-test-bins) in a temporary
directory, write a kubeconfig for them there, create Ready fake nodes
gpu-1, gpu-2, ... with allocatable nvidia.com/gpu, and run Allot's
Kubernetes scheduler on them in this process (as allot k8s-scheduler with
its defaults, without leader election; --scheduler=false leaves that to an
allot k8s-scheduler --kubeconfig you run). It submits one sample pod
(examples/k8s/gpu-pod.yaml) and prints how to submit more with kubectl or
curl and how to see where they were bound.

No kubelet runs: binding a pod records its node (spec.nodeName) and
nothing starts; pods stay Pending. SIGINT (Ctrl-C) or SIGTERM stops the
scheduler and the servers and removes the directory. The servers listen
on 127.0.0.1 only, on free ports unless --api-port, --etcd-port and
--etcd-peer-port fix them; a fixed port in use is refused at once. See
docs/kubernetes.md.`,
		Example: `  ./scripts/k8s-test-bins && allot k8s-dev
  allot k8s-dev --nodes 4 --gpus 4
  allot k8s-dev --api-port 6443`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.opts.Nodes < 1 || f.opts.GPUs < 1 {
				return usageErrorf("--nodes and --gpus: expected at least 1")
			}
			if err := f.ports.check(); err != nil {
				return err
			}
			ctx, stop := stopOnSignals(cmd, "etcd and kube-apiserver die with this process; its temporary directory is left")
			defer stop()
			return runK8sDev(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.opts.Nodes, "nodes", f.opts.Nodes, "fake GPU nodes to create")
	fl.IntVar(&f.opts.GPUs, "gpus", f.opts.GPUs, "allocatable nvidia.com/gpu on each node")
	fl.StringVar(&f.opts.Type, "gpu-type", f.opts.Type, "the nodes' nvidia.com/gpu.product label")
	fl.BoolVar(&f.sample, "sample", true, "submit one sample pod at start")
	fl.BoolVar(&f.schedule, "scheduler", true, "run Allot's scheduler in this process; false: run allot k8s-scheduler --kubeconfig yourself")
	fl.StringVar(&f.logLevel, "log-level", "info", "log level of the scheduler: debug, info, warn or error")
	f.ports.register(cmd)
	return cmd
}

func runK8sDev(ctx context.Context, stdout, stderr io.Writer, f k8sDevFlags) (err error) {
	log, err := newLogger(stderr, f.logLevel, "text")
	if err != nil {
		return usageErrorf("%v", err)
	}
	fmt.Fprintln(stderr, "starting etcd and kube-apiserver (up to a minute) ...")
	srv, err := localapi.StartWith(f.ports.ports)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.Stop()) }()
	files, err := k8sdev.Setup(ctx, srv.Config, srv.Dir(), f.opts)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	if f.schedule {
		s, err := k8sdev.NewScheduler(srv.Config, log)
		if err != nil {
			return err
		}
		klogTo(log)
		go func() { done <- s.Run(ctx) }()
	} else {
		done <- nil
	}
	if f.sample {
		cs, err := kubernetes.NewForConfig(srv.Config)
		if err != nil {
			return fmt.Errorf("kubernetes client: %w", err)
		}
		p, err := k8sdev.SubmitSample(ctx, cs)
		if err != nil {
			return err
		}
		log.Info("submitted the sample pod", "pod", p.Namespace+"/"+p.Name)
	}
	printK8sDevHelp(stdout, srv, files, f)
	<-ctx.Done()
	fmt.Fprintln(stderr, "stopping the scheduler, kube-apiserver and etcd; removing", srv.Dir())
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func printK8sDevHelp(w io.Writer, srv *localapi.Server, files k8sdev.Files, f k8sDevFlags) {
	o := f.opts
	who := "Allot's scheduler runs in this process"
	if !f.schedule {
		who = "No scheduler runs (--scheduler=false): allot k8s-scheduler --kubeconfig " + files.Kubeconfig
	}
	api := srv.Config.Host + "/api/v1/namespaces/default/pods"
	auth := `-H "Authorization: Bearer ` + srv.Config.BearerToken + `"`
	fmt.Fprintf(w, `
kube-apiserver: %s, %d fake nodes gpu-1..gpu-%d with %d nvidia.com/gpu each.
%s (scheduler name "allot").
Ctrl-C stops everything and removes %s.

With kubectl:
  export KUBECONFIG=%s
  kubectl create -f %s
  kubectl get pods -o wide          # NODE is where Allot bound each pod
  kubectl describe pod NAME         # a waiting pod's event says why

With curl (no kubectl needed):
  curl -sk %s -H "Content-Type: application/yaml" \
    --data-binary @%s %s
  curl -sk %s %s | grep -E '"generateName"|"name": "gpu-job|"nodeName"'

No kubelet runs: binding only records the node (spec.nodeName); the pods stay
Pending and nothing is started. Ask for more GPUs than a node has, or more pods
than fit, to see Allot's reasons.
`, srv.Config.Host, o.Nodes, o.Nodes, o.GPUs, who, srv.Dir(), files.Kubeconfig, files.SamplePod,
		auth, files.SamplePod, api, auth, api)
}
