package jobfile

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A pod_spec that selects nodes by the GPU label sets the job's GPU type,
// so that the master places it only on such nodes.
func TestPodSpecGPU(t *testing.T) {
	aff := func(terms string) string {
		return "pod_spec:\n  spec:\n    affinity:\n      nodeAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n" + terms
	}
	in := func(values string) string {
		return "          - matchExpressions:\n            - {key: nvidia.com/gpu.product, operator: In, values: [" + values + "]}\n"
	}
	for _, tc := range []struct {
		name, src, want string
	}{
		{"none", "", ""},
		{"empty model", "pod_spec:\n  spec: {nodeSelector: {nvidia.com/gpu.product: \"\"}}\n", ""},
		{"no GPU label", "pod_spec:\n  spec: {nodeSelector: {disk: ssd}}\n", ""},
		{"nodeSelector", "pod_spec:\n  spec: {nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}\n", "h100"},
		{"nodeSelector agrees with gpu", "resources: {gpu: h100}\npod_spec:\n  spec: {nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-PCIe}}\n", "h100"},
		{"affinity one value", aff(in("NVIDIA-A100-SXM4-80GB")), "a100"},
		{"affinity values of one type", aff(in("NVIDIA-A100-SXM4-80GB, NVIDIA-A100-PCIE-40GB")), "a100"},
		{"affinity terms of one type", aff(in("NVIDIA-A100-SXM4-80GB") + in("NVIDIA-A100-PCIE-40GB")), "a100"},
		{"affinity several types, gpu picks one", "resources: {gpu: a100}\n" + aff(in("NVIDIA-A100-SXM4-80GB, NVIDIA-H100-80GB-HBM3")), "a100"},
		{"a term without the label allows any", aff(in("NVIDIA-H100-80GB-HBM3") + "          - matchExpressions:\n            - {key: zone, operator: In, values: [a]}\n"), ""},
		{"NotIn is left to the agent", aff("          - matchExpressions:\n            - {key: nvidia.com/gpu.product, operator: NotIn, values: [NVIDIA-A100-SXM4-80GB]}\n"), ""},
		{"nodeSelector within affinity", "pod_spec:\n  spec:\n    nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n" +
			aff(in("NVIDIA-A100-SXM4-80GB, NVIDIA-H100-80GB-HBM3"))[len("pod_spec:\n  spec:\n"):], "h100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := mustParse(t, head+tc.src)
			if j.Resources.GPU != tc.want {
				t.Fatalf("resources.gpu = %q, want %q", j.Resources.GPU, tc.want)
			}
			// The derived type survives the API's JSON round trip.
			data, err := json.Marshal(j)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseJSON("job.json", data)
			if err != nil {
				t.Fatalf("ParseJSON: %v", err)
			}
			if !reflect.DeepEqual(back, j) {
				t.Fatalf("round trip changed the job:\n%+v\n%+v", back, j)
			}
		})
	}
}

func TestPodSpecGPUErrors(t *testing.T) {
	affIn := "pod_spec:\n  spec:\n    affinity:\n      nodeAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n" +
		"          - matchExpressions:\n            - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-A100-SXM4-80GB, NVIDIA-H100-80GB-HBM3]}\n"
	runErrorCases(t, Parse, []errorCase{
		{"nodeSelector against gpu", head + "resources: {gpu: a100}\npod_spec:\n  spec: {nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}\n", 5,
			`pod_spec.spec.nodeSelector: selects GPU type "h100" by nvidia.com/gpu.product, but resources.gpu is "a100"; make them agree`},
		{"several types", head + affIn, 4,
			`pod_spec.spec.affinity: allows GPU types "a100", "h100" by nvidia.com/gpu.product, but Allot places a job on one GPU type; list values of one type, or pick one with resources.gpu`},
		{"affinity against gpu", head + "resources: {gpu: v100}\n" + affIn, 5,
			`pod_spec.spec.affinity: allows GPU types "a100", "h100" by nvidia.com/gpu.product, but resources.gpu is "v100"`},
		{"nodeSelector outside affinity", head + "pod_spec:\n  spec:\n    nodeSelector: {nvidia.com/gpu.product: NVIDIA-L40S}\n" + affIn[len("pod_spec:\n  spec:\n"):], 4,
			`pod_spec.spec.affinity: allows GPU types "a100", "h100" by nvidia.com/gpu.product, but nodeSelector selects "l40s": no node can match both`},
	})
}
