package master

import (
	"encoding/json"

	"testing"

	"github.com/allot-sched/allot/agent"
)

// The job's pod_spec goes with every start, for a Kubernetes backend
// (k8s/podagent), also after a restart of the master.
func TestStartCarriesPodSpec(t *testing.T) {
	h := newHarness(t)
	a := h.agent("n1", 4)
	id := h.submit(`{"name": "p", "entrypoint": "x", "resources": {"slots": 1, "priority_class": "LOW"},
		"pod_spec": {"spec": {"containers": [{"name": "main", "image": "img:1"}]}}}`)
	h.step()
	h.sync(a)
	const want = `{"spec":{"containers":[{"image":"img:1","name":"main"}]}}`
	started := a.Started()
	if len(started) != 1 || string(started[0].PodSpec) != want {
		t.Fatalf("starts %+v, want one with pod_spec %s", started, want)
	}
	a.Exit(tid(id, 0, 1), agent.OutcomePreempted, 0)
	h.sync(a)
	h.start() // restored from the store, the job keeps its pod_spec
	a.Master = h.srv.URL
	if _, err := a.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.step()
	h.sync(a)
	started = a.Started()
	if len(started) != 2 || started[1].Attempt != 2 {
		t.Fatalf("starts %+v, want a second attempt", started)
	}
	var spec struct {
		Spec struct {
			Containers []struct{ Image string } `json:"containers"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(started[1].PodSpec, &spec); err != nil || len(spec.Spec.Containers) != 1 || spec.Spec.Containers[0].Image != "img:1" {
		t.Fatalf("pod_spec after a restart %s (%v)", started[1].PodSpec, err)
	}
}
