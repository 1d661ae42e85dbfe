package k8sdev_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/allot-sched/allot/k8s/k8sdev"
	"github.com/allot-sched/allot/k8s/k8stest"
)

func TestMain(m *testing.M) { os.Exit(k8stest.Main(m)) }

func TestSamplePodIsTheExample(t *testing.T) {
	ex, err := os.ReadFile("../../examples/k8s/gpu-pod.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ex, k8sdev.SamplePod) {
		t.Fatal("k8s/k8sdev/gpu-pod.yaml differs from examples/k8s/gpu-pod.yaml; copy the example over it")
	}
}

// TestSetupBindsSamplePod does what allot k8s-dev does and checks that
// the sample pod, submitted through the written kubeconfig, is bound to
// one of the fake nodes.
func TestSetupBindsSamplePod(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rc := k8stest.Config(t)
	files, err := k8sdev.Setup(ctx, rc, t.TempDir(), k8sdev.Options{Nodes: 2, GPUs: 4, Type: "dev-gpu"})
	if err != nil {
		t.Fatal(err)
	}
	userRC, err := clientcmd.BuildConfigFromFlags("", files.Kubeconfig)
	if err != nil {
		t.Fatalf("written kubeconfig: %v", err)
	}
	cs := kubernetes.NewForConfigOrDie(userRC)
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 2 {
		t.Fatalf("nodes through the kubeconfig: %v, err %v; want 2", nodes, err)
	}
	s, err := k8sdev.NewScheduler(rc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	pod, err := k8sdev.SubmitSample(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	node := waitBound(t, cs, pod.Namespace, pod.Name)
	if !strings.HasPrefix(node, "gpu-") {
		t.Fatalf("sample pod bound to %q, want a fake node gpu-N", node)
	}
}

// waitBound polls until the pod has a node; the bound is only a limit on
// a hang, not a timing assertion.
func waitBound(t *testing.T, cs kubernetes.Interface, ns, name string) string {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		p, err := cs.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get pod: %v", err)
		}
		if p.Spec.NodeName != "" {
			return p.Spec.NodeName
		}
	}
	t.Fatalf("pod %s/%s not bound", ns, name)
	return ""
}
