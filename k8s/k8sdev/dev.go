package k8sdev

import (
	"bytes"
	"context"
	_ "embed" // the sample pod
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/allot-sched/allot/k8s"
	"github.com/allot-sched/allot/k8s/localapi"
)

// SamplePod is examples/k8s/gpu-pod.yaml (a test keeps the two equal):
// a pod with schedulerName allot asking for 2 nvidia.com/gpu.
//
//go:embed gpu-pod.yaml
var SamplePod []byte

// GPULabel is the label naming the fake nodes' GPU type, the
// scheduler's default --gpu-label.
const GPULabel = "nvidia.com/gpu.product"

// Options says what Setup makes.
type Options struct {
	Nodes int    // fake GPU nodes, named gpu-1, gpu-2, ...
	GPUs  int    // allocatable nvidia.com/gpu on each
	Type  string // their GPULabel value
}

// Files are what Setup writes into the directory it is given.
type Files struct {
	Kubeconfig string // admin kubeconfig for the API server
	SamplePod  string // SamplePod, to submit with kubectl or curl
}

// Setup writes a kubeconfig and the sample pod into dir and creates
// o.Nodes Ready GPU nodes on the API server rc talks to.
func Setup(ctx context.Context, rc *rest.Config, dir string, o Options) (Files, error) {
	f := Files{Kubeconfig: filepath.Join(dir, "kubeconfig"), SamplePod: filepath.Join(dir, "gpu-pod.yaml")}
	if err := WriteKubeconfig(rc, f.Kubeconfig); err != nil {
		return Files{}, err
	}
	if err := os.WriteFile(f.SamplePod, SamplePod, 0o644); err != nil {
		return Files{}, fmt.Errorf("sample pod: %w", err)
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return Files{}, fmt.Errorf("kubernetes client: %w", err)
	}
	for i := 1; i <= o.Nodes; i++ {
		name := fmt.Sprintf("gpu-%d", i)
		if err := localapi.CreateNode(ctx, cs, name, o.GPUs, map[string]string{GPULabel: o.Type}); err != nil {
			return Files{}, err
		}
	}
	return f, nil
}

// WriteKubeconfig writes a kubeconfig file (mode 0600: it holds the admin
// token) for the bearer-token configuration rc.
func WriteKubeconfig(rc *rest.Config, path string) error {
	c := clientcmdapi.NewConfig()
	c.Clusters["allot-dev"] = &clientcmdapi.Cluster{Server: rc.Host,
		InsecureSkipTLSVerify: rc.TLSClientConfig.Insecure, CertificateAuthorityData: rc.TLSClientConfig.CAData}
	c.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: rc.BearerToken}
	c.Contexts["allot-dev"] = &clientcmdapi.Context{Cluster: "allot-dev", AuthInfo: "admin", Namespace: "default"}
	c.CurrentContext = "allot-dev"
	if err := clientcmd.WriteToFile(*c, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}

// NewScheduler is allot k8s-scheduler with its defaults (scheduler name
// allot, priority policy, binpack) on rc, less leader election: there is
// one replica, and passes every second rather than five.
func NewScheduler(rc *rest.Config, log *slog.Logger) (*k8s.Scheduler, error) {
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	cfg := k8s.DefaultConfig()
	cfg.Leader.Enabled = false
	s := k8s.New(cs, cfg, log)
	s.Interval = time.Second
	if s.Dynamic, err = dynamic.NewForConfig(rc); err != nil {
		return nil, fmt.Errorf("kubernetes dynamic client: %w", err)
	}
	return s, nil
}

// SubmitSample creates one pod from SamplePod and returns it as created.
func SubmitSample(ctx context.Context, cs kubernetes.Interface) (*v1.Pod, error) {
	var p v1.Pod
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(SamplePod), 4096).Decode(&p); err != nil {
		return nil, fmt.Errorf("sample pod: %w", err)
	}
	made, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, &p, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create sample pod: %w", err)
	}
	return made, nil
}
