package k8s_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/allot-sched/allot/k8s"
	"github.com/allot-sched/allot/k8s/k8stest"
)

func TestMain(m *testing.M) { os.Exit(k8stest.Main(m)) }

// poolLabel keeps each test's nodes apart: every test has a pool of its
// own (and a scheduler name of its own), so tests share one API server.
const poolLabel = "allot.test/pool"

// cluster is one test's slice of the shared API server.
type cluster struct {
	t    *testing.T
	cs   kubernetes.Interface
	name string // namespace, pool and scheduler name
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	cs, err := kubernetes.NewForConfig(k8stest.Config(t))
	if err != nil {
		t.Fatal(err)
	}
	name := strings.ToLower(regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(t.Name(), "-"))
	name = strings.Trim(name[max(0, len(name)-50):], "-")
	c := &cluster{t: t, cs: cs, name: name}
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	return c
}

// start runs an Allot scheduler for the test's pool until the test ends
// or stop is called; edits change its configuration.
func (c *cluster) start(edits ...func(*k8s.Config)) (stop func()) {
	return c.run(c.scheduler(edits...))
}

// scheduler makes an Allot scheduler for the test's pool.
func (c *cluster) scheduler(edits ...func(*k8s.Config)) *k8s.Scheduler {
	cfg := k8s.DefaultConfig()
	cfg.SchedulerName, cfg.PoolLabel = c.name, poolLabel
	// A short retry period so that a replica takes a released Lease at
	// once; the Lease and renew deadline stay long, so that a busy machine
	// does not make a leader lose the Lease mid-test. The Lease lives in
	// the test's namespace.
	cfg.Leader.Namespace = c.name
	cfg.Leader.RetryPeriod = 200 * time.Millisecond
	for _, edit := range edits {
		edit(&cfg)
	}
	s := k8s.New(c.cs, cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	s.Interval = 200 * time.Millisecond
	dyn, err := dynamic.NewForConfig(k8stest.Config(c.t))
	if err != nil {
		c.t.Fatal(err)
	}
	s.Dynamic = dyn
	return s
}

// run runs s until the test ends or stop is called.
func (c *cluster) run(s *k8s.Scheduler) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				c.t.Errorf("scheduler: %v", err)
			}
		})
	}
	c.t.Cleanup(stop)
	return stop
}

// node creates a fake node in the test's pool.
func (c *cluster) node(name string, gpus int) {
	c.t.Helper()
	k8stest.AddNode(c.t, c.cs, c.name+"-"+name, gpus, map[string]string{poolLabel: c.name})
}

// pod creates a pod for the test's scheduler; labels make gangs.
func (c *cluster) pod(name string, gpus int, labels map[string]string) {
	c.t.Helper()
	c.podWith(name, gpus, func(p *v1.Pod) { p.Labels = labels })
}

// podWith creates a pod for the test's scheduler after edit changes it.
func (c *cluster) podWith(name string, gpus int, edit func(*v1.Pod)) {
	c.t.Helper()
	q := *resource.NewQuantity(int64(gpus), resource.DecimalSI)
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.name},
		Spec: v1.PodSpec{
			SchedulerName: c.name,
			NodeSelector:  map[string]string{poolLabel: c.name},
			Containers: []v1.Container{{Name: "main", Image: "busybox",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{k8s.ResourceGPU: q}, Limits: v1.ResourceList{k8s.ResourceGPU: q}}}},
		},
	}
	edit(p)
	if _, err := c.cs.CoreV1().Pods(c.name).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		c.t.Fatalf("create pod %s: %v", name, err)
	}
}

func gang(name string, min int) map[string]string {
	return map[string]string{k8s.LabelPodGroup: name, k8s.LabelMinAvailable: strconv.Itoa(min)}
}

// pods lists the test's pods by name.
func (c *cluster) pods() map[string]*v1.Pod {
	c.t.Helper()
	l, err := c.cs.CoreV1().Pods(c.name).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("list pods: %v", err)
	}
	out := map[string]*v1.Pod{}
	for i := range l.Items {
		out[l.Items[i].Name] = &l.Items[i]
	}
	return out
}

// waitFor polls until ok holds for the pods or the deadline passes.
func (c *cluster) waitFor(what string, ok func(map[string]*v1.Pod) bool) map[string]*v1.Pod {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pods := c.pods()
		if ok(pods) {
			return pods
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out waiting for %s; pods:\n%s", what, describe(pods))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hasEvent reports whether the pod has an event with the reason and
// message.
func (c *cluster) hasEvent(pod, reason, msg string) bool {
	c.t.Helper()
	l, err := c.cs.CoreV1().Events(c.name).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatalf("list events: %v", err)
	}
	for _, e := range l.Items {
		if e.InvolvedObject.Name == pod && e.Reason == reason && e.Message == msg {
			return true
		}
	}
	return false
}

// waiting is the message of the pod's PodScheduled=False condition.
func waiting(p *v1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse {
			return c.Message
		}
	}
	return ""
}

func describe(pods map[string]*v1.Pod) string {
	var b strings.Builder
	for name, p := range pods {
		fmt.Fprintf(&b, "  %s node=%q waiting=%q\n", name, p.Spec.NodeName, waiting(p))
	}
	return b.String()
}
