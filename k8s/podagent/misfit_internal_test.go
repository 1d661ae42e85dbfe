package podagent

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMisfit(t *testing.T) {
	a := &Agent{cfg: Config{ToleratedTaints: []string{"nvidia.com/gpu"}}}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-PCIe", "zone": "a"}},
		Spec: v1.NodeSpec{Taints: []v1.Taint{
			{Key: "nvidia.com/gpu", Effect: v1.TaintEffectNoSchedule},
			{Key: "dedicated", Value: "train", Effect: v1.TaintEffectNoSchedule},
			{Key: "slow", Effect: v1.TaintEffectPreferNoSchedule},
		}}}
	train := v1.Toleration{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "train", Effect: v1.TaintEffectNoSchedule}
	affinity := func(op v1.NodeSelectorOperator, values ...string) *v1.Affinity {
		return &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: "nvidia.com/gpu.product", Operator: op, Values: values}}}}}}}
	}
	for _, tc := range []struct {
		name string
		spec v1.PodSpec
		want string // in the reason; "" for none
	}{
		{"fits", v1.PodSpec{NodeSelector: map[string]string{"zone": "a"}, Tolerations: []v1.Toleration{train},
			Affinity: affinity(v1.NodeSelectorOpIn, "NVIDIA-H100-PCIe")}, ""},
		{"model differs from the type", v1.PodSpec{NodeSelector: map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}, Tolerations: []v1.Toleration{train}},
			"its nodeSelector nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3 does not match node n1, whose nvidia.com/gpu.product is NVIDIA-H100-PCIe"},
		{"label missing", v1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}, Tolerations: []v1.Toleration{train}},
			"its nodeSelector disk=ssd does not match node n1, which has no disk label"},
		{"affinity", v1.PodSpec{Affinity: affinity(v1.NodeSelectorOpNotIn, "NVIDIA-H100-PCIe"), Tolerations: []v1.Toleration{train}},
			"its required node affinity (nvidia.com/gpu.product NotIn [NVIDIA-H100-PCIe]) does not match node n1"},
		{"bad affinity", v1.PodSpec{Affinity: affinity(v1.NodeSelectorOpGt, "x"), Tolerations: []v1.Toleration{train}},
			"its required node affinity is invalid"},
		{"taint", v1.PodSpec{}, "its tolerations do not tolerate node n1's taint dedicated=train:NoSchedule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := a.misfit(&v1.Pod{Spec: tc.spec}, node)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("misfit = %q, want %q", got, tc.want)
			}
		})
	}
}
