package podagent

import (
	"encoding/json"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/allot-sched/allot/agent"
)

func TestBuildPodMainContainer(t *testing.T) {
	spec := agent.TaskSpec{JobID: "7", TaskIndex: 2, Attempt: 3, Entrypoint: "run", GPUs: []int{0, 1, 2}, NodeRank: 1, NodeCount: 2,
		PodSpec: json.RawMessage(`{"spec": {"containers": [{"name": "proxy", "image": "p"},
			{"name": "allot", "image": "i", "command": ["x"], "args": ["y"],
			 "resources": {"requests": {"nvidia.com/gpu": 8, "cpu": 1}, "limits": {"nvidia.com/gpu": 8}}}]}}`)}
	p, err := buildPod(spec, "n1", "ns", "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "allot-7-2-3-1" || p.Namespace != "ns" || p.Labels[LabelRank] != "1" {
		t.Errorf("pod %s/%s labels %v", p.Namespace, p.Name, p.Labels)
	}
	c := p.Spec.Containers[1]
	if strings.Join(c.Command, " ") != "/bin/sh -c run" || c.Args != nil {
		t.Errorf("command %q args %q", c.Command, c.Args)
	}
	three := resource.MustParse("3")
	if q := c.Resources.Limits[GPUResource]; q.Cmp(three) != 0 {
		t.Errorf("limit %v", q.String())
	}
	if q := c.Resources.Requests[GPUResource]; q.Cmp(three) != 0 {
		t.Errorf("request %v", q.String())
	}
	if len(p.Spec.Containers[0].Env) != 0 {
		t.Errorf("the proxy got env %v", p.Spec.Containers[0].Env)
	}
}

func TestBuildPodDefaults(t *testing.T) {
	spec := agent.TaskSpec{JobID: "7", Entrypoint: "run"}
	if _, err := buildPod(spec, "n1", "ns", ""); err == nil || !strings.Contains(err.Error(), "--image") {
		t.Fatalf("no container and no image: %v", err)
	}
	p, err := buildPod(spec, "n1", "ns", "python:3")
	if err != nil {
		t.Fatal(err)
	}
	c := p.Spec.Containers[0]
	if c.Name != MainContainer || c.Image != "python:3" || len(c.Resources.Limits) != 0 {
		t.Errorf("container %+v: want %s in python:3 without GPUs (zero slots)", c, MainContainer)
	}
	if last := c.Env[len(c.Env)-1]; last.Name != "NVIDIA_VISIBLE_DEVICES" || last.Value != "void" {
		t.Errorf("a zero-slot task's env ends with %+v, want NVIDIA_VISIBLE_DEVICES=void", last)
	}
	spec.Env = map[string]string{"NVIDIA_VISIBLE_DEVICES": "none"}
	p, _ = buildPod(spec, "n1", "ns", "python:3")
	for _, e := range p.Spec.Containers[0].Env {
		if e.Name == "NVIDIA_VISIBLE_DEVICES" && e.Value != "none" {
			t.Errorf("the job's own NVIDIA_VISIBLE_DEVICES was replaced by %q", e.Value)
		}
	}
	if _, err := buildPod(agent.TaskSpec{JobID: "../x"}, "n1", "ns", "i"); err == nil {
		t.Error("a job id that cannot name a pod was accepted")
	}
}

func TestPodExit(t *testing.T) {
	pod := func(phase v1.PodPhase, reason string, code int32, creason string) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: partLabels("n1", agent.TaskID{JobID: "1"}, 0)},
			Spec:   v1.PodSpec{Containers: []v1.Container{{Name: "main"}}},
			Status: v1.PodStatus{Phase: phase, Reason: reason}}
		if code >= 0 {
			p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "main",
				State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: code, Reason: creason}}}}
		}
		return p
	}
	tests := []struct {
		name          string
		p             *v1.Pod
		ended         bool
		outcome, errs string
		code          int // -1: none
	}{
		{"running", pod(v1.PodRunning, "", -1, ""), false, "", "", -1},
		{"succeeded", pod(v1.PodSucceeded, "", 0, "Completed"), true, "completed", "", 0},
		{"exit 3", pod(v1.PodFailed, "", 3, "Error"), true, "failed", "", 3},
		{"oom", pod(v1.PodFailed, "", 137, "OOMKilled"), true, "failed", "container OOMKilled", 137},
		{"evicted", pod(v1.PodFailed, "Evicted", -1, ""), true, "failed", "pod Evicted:", -1},
	}
	for _, tc := range tests {
		r, ended := podExit(tc.p)
		if ended != tc.ended || r.Outcome != tc.outcome || !strings.Contains(r.Error, tc.errs) ||
			(tc.code < 0) != (r.ExitCode == nil) || (r.ExitCode != nil && *r.ExitCode != tc.code) {
			t.Errorf("%s: got %+v ended %v", tc.name, r, ended)
		}
	}
}

func TestSplitLinesCutsLongLines(t *testing.T) {
	data := []byte(strings.Repeat("x", agent.MaxLineBytes+5) + "\nshort\r\n")
	n, tok, _ := splitLines(data, false)
	if n != agent.MaxLineBytes || len(tok) != agent.MaxLineBytes {
		t.Fatalf("first token %d bytes, advance %d", len(tok), n)
	}
	n2, tok, _ := splitLines(data[n:], false)
	if string(tok) != "xxxxx" {
		t.Fatalf("second token %q", tok)
	}
	if _, tok, _ = splitLines(data[n+n2:], false); string(tok) != "short" {
		t.Fatalf("third token %q", tok)
	}
}

func TestStuckPod(t *testing.T) {
	p := &v1.Pod{Status: v1.PodStatus{Phase: v1.PodPending, ContainerStatuses: []v1.ContainerStatus{{Name: "main",
		State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: `secret "x" not found`}}}}}}
	if got := stuck(p); got != `container main cannot start: CreateContainerConfigError: secret "x" not found` {
		t.Errorf("stuck = %q", got)
	}
	p.Status.ContainerStatuses[0].State.Waiting.Reason = "ImagePullBackOff"
	if got := stuck(p); got != "" {
		t.Errorf("an image pull back-off is stuck: %q", got)
	}
}

// TestBuildPodKillGrace: a pod gets the pool's kill_grace as its
// terminationGracePeriodSeconds, which a kill's delete takes, unless the
// job's pod_spec sets one or the master sends none.
func TestBuildPodKillGrace(t *testing.T) {
	grace := func(v int64) *int64 { return &v }
	tests := []struct {
		name    string
		podSpec string
		kill    *int64
		want    *int64
	}{
		{"the pool's", "", grace(45), grace(45)},
		{"the pool's 0", "", grace(0), grace(0)},
		{"the pod_spec's", `{"spec": {"terminationGracePeriodSeconds": 120}}`, grace(45), grace(120)},
		{"none from the master", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := agent.TaskSpec{JobID: "7", Entrypoint: "run", KillGraceS: tt.kill, PodSpec: json.RawMessage(tt.podSpec)}
			p, err := buildPod(spec, "n1", "ns", "python:3")
			if err != nil {
				t.Fatal(err)
			}
			got := p.Spec.TerminationGracePeriodSeconds
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("terminationGracePeriodSeconds %v, want %v", got, tt.want)
			}
		})
	}
}
