package podagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/k8s/k8stest"
	"github.com/allot-sched/allot/k8s/podagent"
	"github.com/allot-sched/allot/master"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(k8stest.Main(m)) }

// fakeLogs stands in for the kubelet, which the test API server lacks:
// a pod's output is what the test put there, and the stream ends at once.
type fakeLogs struct {
	mu   sync.Mutex
	text map[string]string // by pod name
}

func (f *fakeLogs) Open(_ context.Context, _, pod, _ string) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return io.NopCloser(strings.NewReader(f.text[pod])), nil
}

func (f *fakeLogs) set(pod, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.text[pod] = text
}

// testWriter sends the backend's log to the test's.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// env is a real master, a real API server and the backend between them.
type env struct {
	t    *testing.T
	ctx  context.Context
	cs   kubernetes.Interface
	ns   string
	node string
	cl   *client.Client
	join string
	url  string
	logs *fakeLogs
	stop context.CancelFunc
	done chan struct{}
	runs int // backend processes started
	// startTimeout and limitSlack, when set before startAgent, are the
	// backend's StartTimeout and LimitSlack.
	startTimeout, limitSlack time.Duration
	// flaky is the master's store, which fails writes while Down is set.
	flaky *storetest.Flaky
}

func newEnv(t *testing.T, name string) *env {
	t.Helper()
	e := setupEnv(t, name)
	e.startAgent()
	return e
}

// setupEnv is newEnv without a backend, for tests that start their own:
// a backend stopped right after its first registration may not have
// stored the node's credential yet, and the master then refuses the join
// token to the next one until the node's lease runs out.
func setupEnv(t *testing.T, name string) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	st, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	flaky := &storetest.Flaky{Store: st}
	m, err := master.New(ctx, master.Options{Store: flaky, DataDir: dir, Logger: slog.New(slog.DiscardHandler),
		SyncWait: time.Second, Tick: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	go m.Run(ctx)
	now := time.Now()
	admin, err := master.BootstrapAdmin(ctx, st, "root", "test", false, now)
	if err != nil {
		t.Fatal(err)
	}
	join, err := master.NewJoinToken(ctx, st, "root", "test", 0, now)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(k8stest.Config(t))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ctx: ctx, cs: cs, ns: "pa-" + name, node: "pa-" + name + "-n1", cl: cl.WithToken(admin),
		join: join, url: srv.URL, logs: &fakeLogs{text: map[string]string{}}, flaky: flaky}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	k8stest.AddNode(t, cs, e.node, 4, map[string]string{"allot-test": e.ns, "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"})
	t.Cleanup(e.stopAgent)
	return e
}

// startAgent starts a backend process and waits until it has
// registered the node (so has adopted the pods there).
func (e *env) startAgent() {
	e.t.Helper()
	e.runs++
	version := fmt.Sprintf("test-%d", e.runs)
	a, err := podagent.New(e.cs, podagent.Config{Master: e.url, JoinToken: e.join, Namespace: e.ns, Version: version,
		NodeSelector: "allot-test=" + e.ns, Logs: e.logs, LogWait: 5 * time.Second, StartTimeout: e.startTimeout, LimitSlack: e.limitSlack,
		Logger: slog.New(slog.NewTextHandler(testWriter{e.t}, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, stop := context.WithCancel(e.ctx)
	e.stop, e.done = stop, make(chan struct{})
	go func() {
		defer close(e.done)
		if err := a.Run(ctx); err != nil {
			e.t.Errorf("agent: %v", err)
		}
	}()
	e.waitFor("the node to register", func() bool {
		nodes, err := e.cl.Nodes(e.ctx)
		for _, n := range nodes {
			if n.Name == e.node && err == nil && n.Version == version {
				if n.Slots != 4 || n.GPUType != "h100" || n.Pool != "default" {
					e.t.Fatalf("node registered as %+v, want 4 slots of h100 in pool default", n)
				}
				return true
			}
		}
		return false
	})
}

func (e *env) stopAgent() {
	if e.stop != nil {
		e.stop()
		<-e.done
		e.stop = nil
	}
}

func (e *env) waitFor(what string, ok func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *env) submit(podSpec string) int64 {
	e.t.Helper()
	return e.submitWith(podSpec, `{"slots": 2}`)
}

func (e *env) submitWith(podSpec, resources string) int64 {
	e.t.Helper()
	spec := fmt.Sprintf(`{"name": "train", "entrypoint": "python train.py --epochs 3", "environment": {"DATA": "/data"},
		"resources": %s, "pod_spec": %s}`, resources, podSpec)
	r, err := e.cl.Submit(e.ctx, json.RawMessage(spec))
	if err != nil {
		e.t.Fatal(err)
	}
	return r.ID
}

// pod waits for the pod of the job's first attempt and returns it.
func (e *env) pod(job int64) *v1.Pod {
	e.t.Helper()
	var pod *v1.Pod
	e.waitFor(fmt.Sprintf("the pod of job %d", job), func() bool {
		l, err := e.cs.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{LabelSelector: fmt.Sprintf("allot.dev/job=%d", job)})
		if err != nil || len(l.Items) != 1 {
			return false
		}
		pod = &l.Items[0]
		return true
	})
	return pod
}

// setStatus does what the kubelet would: run the pod, or end it with the
// main container's exit code.
func (e *env) setStatus(pod *v1.Pod, phase v1.PodPhase, exit int32) {
	e.t.Helper()
	p, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	now := metav1.Now()
	st := v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: now}}
	if phase != v1.PodRunning {
		st = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: exit, StartedAt: now, FinishedAt: now}}
	}
	p.Status.Phase = phase
	p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: p.Spec.Containers[0].Name, Image: p.Spec.Containers[0].Image, State: st}}
	if _, err := e.cs.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, p, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) jobState(id int64, want string) api.Job {
	e.t.Helper()
	var j api.Job
	e.waitFor(fmt.Sprintf("job %d to be %s", id, want), func() bool {
		var err error
		j, err = e.cl.Job(e.ctx, id)
		return err == nil && j.State == want
	})
	return j
}

const podSpec = `{"metadata": {"labels": {"team": "vision"}},
	"spec": {"terminationGracePeriodSeconds": 45,
		"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
		"containers": [{"name": "main", "image": "registry.example.com/train:1",
			"env": [{"name": "DATA", "value": "overridden"}, {"name": "KEEP", "value": "1"}]},
			{"name": "sidecar", "image": "registry.example.com/proxy:1"}]}}`

func TestJobRunsAsPod(t *testing.T) {
	e := newEnv(t, "run")
	id := e.submit(podSpec)
	pod := e.pod(id)
	if pod.Spec.NodeName != e.node || pod.Spec.RestartPolicy != v1.RestartPolicyNever {
		t.Errorf("node %q, restart policy %q; want %q, Never", pod.Spec.NodeName, pod.Spec.RestartPolicy, e.node)
	}
	if pod.Labels["team"] != "vision" || pod.Labels["allot.dev/job"] != fmt.Sprint(id) || pod.Labels["allot.dev/attempt"] != "1" && pod.Labels["allot.dev/attempt"] != "0" {
		t.Errorf("labels = %v", pod.Labels)
	}
	c := pod.Spec.Containers[0]
	if got := strings.Join(c.Command, " "); got != "/bin/sh -c python train.py --epochs 3" {
		t.Errorf("command = %q", got)
	}
	env := map[string]string{}
	for _, v := range c.Env {
		env[v.Name] = v.Value
	}
	if env["DATA"] != "/data" || env["KEEP"] != "1" || env["ALLOT_JOB_ID"] != fmt.Sprint(id) || env["ALLOT_TASK_INDEX"] != "0" {
		t.Errorf("env = %v", env)
	}
	if q := c.Resources.Limits[podagent.GPUResource]; q.Value() != 2 {
		t.Errorf("gpu limit = %v, want 2", q.String())
	}
	if len(pod.Spec.Containers[1].Resources.Limits) != 0 || len(pod.Spec.Containers[1].Env) != 0 {
		t.Errorf("the sidecar was changed: %+v", pod.Spec.Containers[1])
	}
	e.logs.set(pod.Name, "2026-11-26T07:00:00.5Z epoch 1\nepoch 2\n")
	e.setStatus(pod, v1.PodRunning, 0)
	e.jobState(id, "running")
	e.setStatus(pod, v1.PodSucceeded, 0)
	e.jobState(id, "completed")
	logs, err := e.cl.Logs(e.ctx, id, client.LogQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, l := range logs.Lines {
		text = append(text, l.Text)
	}
	if strings.Join(text, "|") != "epoch 1|epoch 2" || logs.Lines[0].Time.Format(time.RFC3339Nano) != "2026-11-26T07:00:00.5Z" {
		t.Errorf("logs = %+v", logs.Lines)
	}
	// Its story told, the pod goes.
	e.waitFor("the pod to be deleted", func() bool {
		_, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, pod.Name, metav1.GetOptions{})
		return err != nil
	})
}

func TestPodExitCodeFailsJob(t *testing.T) {
	e := newEnv(t, "fail")
	id := e.submit(podSpec)
	pod := e.pod(id)
	e.setStatus(pod, v1.PodFailed, 3)
	j := e.jobState(id, "failed")
	full, err := e.cl.Job(e.ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	att := full.TaskList[0].Attempts
	if len(att) == 0 || att[len(att)-1].ExitCode == nil || *att[len(att)-1].ExitCode != 3 {
		t.Fatalf("attempts = %+v, want the last with exit code 3", att)
	}
}

func TestKillDeletesPodWithGrace(t *testing.T) {
	e := newEnv(t, "kill")
	id := e.submit(podSpec)
	pod := e.pod(id)
	e.setStatus(pod, v1.PodRunning, 0)
	e.jobState(id, "running")
	if _, err := e.cl.Kill(e.ctx, id); err != nil {
		t.Fatal(err)
	}
	var p *v1.Pod
	e.waitFor("a graceful delete of the pod", func() bool {
		var err error
		p, err = e.cs.CoreV1().Pods(e.ns).Get(e.ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp != nil
	})
	if p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds != 45 {
		t.Errorf("deletion grace = %v, want the pod's 45s", p.DeletionGracePeriodSeconds)
	}
	// The kubelet would stop the containers, then remove the pod.
	zero := int64(0)
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	e.jobState(id, "killed") // at once; the attempt ends when the pod goes
	e.waitFor("the attempt to end killed", func() bool {
		j, err := e.cl.Job(e.ctx, id)
		return err == nil && len(j.TaskList) == 1 && j.TaskList[0].Attempts[0].EndState == "killed"
	})
}

func TestPreemptDeletesPodWithPoolGrace(t *testing.T) {
	e := newEnv(t, "preempt")
	low := e.submitWith(podSpec, `{"slots": 4, "priority_class": "LOW"}`)
	pod := e.pod(low)
	e.setStatus(pod, v1.PodRunning, 0)
	e.jobState(low, "running")
	high := e.submitWith(podSpec, `{"slots": 4, "priority_class": "HIGH"}`)
	var p *v1.Pod
	e.waitFor("a graceful delete of the low job's pod", func() bool {
		var err error
		p, err = e.cs.CoreV1().Pods(e.ns).Get(e.ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp != nil
	})
	if p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds != int64(master.DefaultGrace/time.Second) {
		t.Errorf("deletion grace = %v, want the pool's %v", p.DeletionGracePeriodSeconds, master.DefaultGrace)
	}
	// The task checkpoints on SIGTERM and exits 0; the kubelet removes
	// the pod.
	e.setStatus(pod, v1.PodSucceeded, 0)
	zero := int64(0)
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the low job's attempt to end preempted", func() bool {
		j, err := e.cl.Job(e.ctx, low)
		return err == nil && len(j.TaskList) == 1 && j.TaskList[0].Attempts[0].EndState == "preempted"
	})
	e.pod(high)
	e.jobState(low, "queued")
}

func TestRestartDuringPreemption(t *testing.T) {
	e := newEnv(t, "restart-preempt")
	low := e.submitWith(podSpec, `{"slots": 4, "priority_class": "LOW"}`)
	pod := e.pod(low)
	e.setStatus(pod, v1.PodRunning, 0)
	e.jobState(low, "running")
	e.submitWith(podSpec, `{"slots": 4, "priority_class": "HIGH"}`)
	e.waitFor("a graceful delete of the low job's pod", func() bool {
		p, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp != nil
	})
	e.stopAgent()
	e.startAgent()
	zero := int64(0)
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	// The new process knows the pod was preempted, not lost or failed.
	e.waitFor("the low job's attempt to end preempted", func() bool {
		j, err := e.cl.Job(e.ctx, low)
		return err == nil && len(j.TaskList) == 1 && j.TaskList[0].Attempts[0].EndState == "preempted"
	})
}

func TestRestartAdoptsPods(t *testing.T) {
	e := newEnv(t, "adopt")
	id := e.submit(podSpec)
	pod := e.pod(id)
	e.setStatus(pod, v1.PodRunning, 0)
	e.jobState(id, "running")
	e.stopAgent()
	e.startAgent()
	// The new process finds the pod by its labels and does not make a
	// second one; the job goes on to its end.
	e.setStatus(pod, v1.PodSucceeded, 0)
	e.jobState(id, "completed")
	full, err := e.cl.Job(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(full.TaskList[0].Attempts); n != 1 {
		t.Errorf("%d attempts, want 1: %+v", n, full.TaskList[0].Attempts)
	}
}

func TestBadPodSpecRefused(t *testing.T) {
	e := newEnv(t, "bad")
	_, err := e.cl.Submit(e.ctx, json.RawMessage(`{"name": "x", "entrypoint": "x", "pod_spec": {"spec": {"nodeName": "n"}}}`))
	if err == nil || !strings.Contains(err.Error(), "pod_spec.spec.nodeName") {
		t.Fatalf("submit: %v, want an error naming pod_spec.spec.nodeName", err)
	}
}

func TestRefusedPodFailsAttempt(t *testing.T) {
	e := newEnv(t, "refused")
	id := e.submit(`{"spec": {"priorityClassName": "nosuch", "containers": [{"name": "main", "image": "i"}]}}`)
	e.jobState(id, "failed")
	j, err := e.cl.Job(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	att := j.TaskList[0].Attempts
	if len(att) == 0 || !strings.Contains(att[len(att)-1].Reason, "nosuch") {
		t.Fatalf("attempts %+v, want a reason naming the missing PriorityClass", att)
	}
}

func TestPodDeletedBySomeoneElseFailsAttempt(t *testing.T) {
	e := newEnv(t, "deleted")
	id := e.submit(podSpec)
	pod := e.pod(id)
	e.setStatus(pod, v1.PodRunning, 0)
	e.jobState(id, "running")
	zero := int64(0)
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the attempt to fail", func() bool {
		j, err := e.cl.Job(e.ctx, id)
		return err == nil && len(j.TaskList) == 1 && j.TaskList[0].Attempts[0].EndState == "failed" &&
			strings.Contains(j.TaskList[0].Attempts[0].Reason, "deleted before it ended, not by Allot")
	})
}
