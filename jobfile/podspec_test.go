package jobfile

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParsePodSpec(t *testing.T) {
	j := mustParse(t, head+`
pod_spec:
  apiVersion: v1
  kind: Pod
  metadata:
    labels: {team: vision}
  spec:
    priorityClassName: high
    nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100}
    tolerations:
    - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
    containers:
    - name: main
      image: registry.example.com/train:1
      resources: {limits: {memory: 64Gi, cpu: 8}}
`)
	want := `{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"team":"vision"}},"spec":{"containers":[{"image":"registry.example.com/train:1",` +
		`"name":"main","resources":{"limits":{"cpu":8,"memory":"64Gi"}}}],"nodeSelector":{"cloud.google.com/gke-accelerator":"nvidia-h100"},` +
		`"priorityClassName":"high","tolerations":[{"effect":"NoSchedule","key":"nvidia.com/gpu","operator":"Exists"}]}}`
	if string(j.PodSpec) != want {
		t.Fatalf("pod_spec =\n%s\nwant\n%s", j.PodSpec, want)
	}
	// A Job's JSON is a spec that parses back to the same Job.
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseJSON("job.json", data)
	if err != nil {
		t.Fatalf("ParseJSON of the marshalled job: %v", err)
	}
	if !reflect.DeepEqual(back, j) {
		t.Fatalf("round trip changed the job:\n%+v\n%+v", back, j)
	}
	if j := mustParse(t, head+"pod_spec: ~\n"); j.PodSpec != nil {
		t.Errorf("pod_spec: ~ gave %s, want none", j.PodSpec)
	}
}

// The seed's Determined examples: gang labels written as numbers, and
// priority class, node selector and tolerations.
func TestParsePodSpecDetermined(t *testing.T) {
	j := mustParse(t, head+`
pod_spec:
  metadata:
    labels:
      pod-group.scheduling.sigs.k8s.io/name: train
      pod-group.scheduling.sigs.k8s.io/min-available: 8
  spec:
    schedulerName: coscheduler
    priorityClassName: determined-medium-priority
    nodeSelector:
      key: value
    tolerations:
    -  key: "key1"
       operator: "Equal"
       value: "value"
       effect: "NoSchedule"
`)
	var got struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(j.PodSpec, &got); err != nil || got.Metadata.Labels["pod-group.scheduling.sigs.k8s.io/min-available"] != "8" {
		t.Fatalf("pod_spec %s (%v): want the label value \"8\" as a string", j.PodSpec, err)
	}
}

func TestParseErrorsPodSpec(t *testing.T) {
	runErrorCases(t, Parse, []errorCase{
		{"not a mapping", head + "pod_spec: [a]\n", 3, "pod_spec: expected a mapping, got a list"},
		{"other kind", head + "pod_spec: {kind: Deployment}\n", 3, `pod_spec.kind: expected "Pod" (or leave it out)`},
		{"other version", head + "pod_spec: {apiVersion: apps/v1}\n", 3, `pod_spec.apiVersion: expected "v1"`},
		{"unknown top field", head + "pod_spec:\n  spek: {}\n", 4, `pod_spec: unknown field "spek"; did you mean "spec"?`},
		{"pod name", head + "pod_spec:\n  metadata: {name: x}\n", 4, "pod_spec.metadata.name: Allot names the pod"},
		{"reserved label", head + "pod_spec:\n  metadata:\n    labels: {allot.dev/job: x}\n", 5,
			`pod_spec.metadata.labels: "allot.dev/job": keys under allot.dev/ are set by Allot`},
		{"reserved annotation", head + "pod_spec:\n  metadata:\n    annotations: {allot.dev/stop: kill}\n", 5,
			`pod_spec.metadata.annotations: "allot.dev/stop": keys under allot.dev/ are set by Allot`},
		{"label not a string", head + "pod_spec:\n  metadata:\n    labels: {a: [b]}\n", 5, "pod_spec.metadata.labels.a: expected a string, got a list"},
		{"unknown spec field", head + "pod_spec:\n  spec: {nodeSelektor: {a: b}}\n", 4, `pod_spec.spec: not a Kubernetes PodSpec: unknown field "nodeSelektor"`},
		{"wrong spec type", head + "pod_spec:\n  spec: {tolerations: {key: a}}\n", 4, "pod_spec.spec: not a Kubernetes PodSpec: cannot unmarshal object into Go struct field PodSpec.tolerations"},
		{"node name", head + "pod_spec:\n  spec: {nodeName: n1}\n", 4, "pod_spec.spec.nodeName: Allot places the pod"},
		{"restart policy", head + "pod_spec:\n  spec: {restartPolicy: OnFailure}\n", 4, `pod_spec.spec.restartPolicy: expected Never`},
		{"container without image", head + "pod_spec:\n  spec: {containers: [{name: main}]}\n", 4, "pod_spec.spec.containers[0].image: missing"},
		{"container without name", head + "pod_spec:\n  spec: {containers: [{image: x}]}\n", 4, "pod_spec.spec.containers[0].name: missing"},
		{"non-string key", head + "pod_spec:\n  spec: {nodeSelector: {1: a}}\n", 4, "keys must be strings"},
	})
}
