package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/allot-sched/allot/k8s/k8stest"
)

func TestK8sSchedulerFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown policy", []string{"--policy", "multifactor"}, "--policy: expected fifo, priority, quota or fair_share"},
		{"missing projects file", []string{"--policy", "quota", "--projects", "/nonexistent/projects.yaml"}, "--projects: projects file"},
		{"unknown placement", []string{"--placement", "random"}, "--placement: expected binpack or spread"},
		{"zero interval", []string{"--interval", "0s"}, "--interval: expected a positive duration"},
		{"negative grace", []string{"--preemption-grace", "-1s"}, "--preemption-grace and --min-run-time"},
		{"missing kubeconfig", []string{"--kubeconfig", "/nonexistent/kubeconfig"}, "kubernetes client configuration"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, append([]string{"k8s-scheduler"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestK8sSchedulerBindsPods runs the command against a real kube-apiserver
// through a kubeconfig file, as an admin would.
func TestK8sSchedulerBindsPods(t *testing.T) {
	rc := k8stest.Config(t)
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	const name = "cli-k8s-scheduler"
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	k8stest.AddNode(t, cs, name+"-node", 2, map[string]string{"allot.test/pool": name})
	gpu := resource.MustParse("2")
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: name}, Spec: v1.PodSpec{
		SchedulerName: name, NodeSelector: map[string]string{"allot.test/pool": name},
		Containers: []v1.Container{{Name: "main", Image: "busybox", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{"nvidia.com/gpu": gpu}, Limits: v1.ResourceList{"nvidia.com/gpu": gpu}}}}}}
	if _, err := cs.CoreV1().Pods(name).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		root := New()
		root.SetArgs([]string{"k8s-scheduler", "--kubeconfig", writeKubeconfig(t, rc), "--scheduler-name", name,
			"--pool-label", "allot.test/pool", "--interval", "200ms", "--log-level", "warn"})
		done <- root.ExecuteContext(runCtx)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("allot k8s-scheduler: %v", err)
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		p, err := cs.CoreV1().Pods(name).Get(ctx, "p", metav1.GetOptions{})
		if err == nil && p.Spec.NodeName == name+"-node" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod not bound to %s-node after 30s: %+v, %v", name, p.Status.Conditions, err)
		}
	}
}

func writeKubeconfig(t *testing.T, rc *rest.Config) string {
	t.Helper()
	cfg := `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: "` + rc.Host + `", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: "` + rc.BearerToken + `"}
contexts:
- name: test
  context: {cluster: test, user: admin}
current-context: test
`
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
