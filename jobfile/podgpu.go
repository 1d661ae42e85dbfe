package jobfile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/allot-sched/allot/agent/gpumodel"
	"github.com/allot-sched/allot/yamlfield"
)

// GPULabel is the node label naming a Kubernetes node's GPU model, set by
// GPU feature discovery (e.g. NVIDIA-H100-80GB-HBM3) and read by
// `allot k8s-agent` by default. A pod_spec that selects nodes by it
// decides the job's GPU type: the master places a job by resources.gpu
// alone, so without it an H100 pod_spec could be placed on an A100 node.
const GPULabel = "nvidia.com/gpu.product"

// podGPU sets r.GPU from the GPU types the pod_spec allows through
// GPULabel, or reports how they contradict each other or resources.gpu.
// The core restricts a job to one GPU type, so a pod_spec allowing several
// needs resources.gpu to pick one. Label values are reduced to types by
// the agent's rule (gpumodel.Type), so the type is only a first cut:
// NVIDIA-H100-PCIe and NVIDIA-H100-80GB-HBM3 are both h100, and the
// k8s-agent checks the exact labels before it makes the pod.
func (p *parser) podGPU(f *yamlfield.Fields, raw json.RawMessage, r *Resources) {
	if raw == nil {
		return
	}
	var pod struct {
		Spec corev1.PodSpec `json:"spec"`
	}
	if err := json.Unmarshal(raw, &pod); err != nil {
		// podSpec checked the spec already; this cannot fail.
		f.Errorf("pod_spec", "%v", err)
		return
	}
	line := f.ValueLine("pod_spec")
	types, from, msg := podGPUTypes(&pod.Spec)
	switch {
	case msg != "":
		p.ErrorAt(line, p.Join("pod_spec.spec", from), nil, "%s", msg)
	case types == nil:
	case r.GPU != "" && !slices.Contains(types, r.GPU):
		p.ErrorAt(line, p.Join("pod_spec.spec", from), nil,
			"%s by %s, but resources.gpu is %s; make them agree (or leave resources.gpu out)",
			allows(types), GPULabel, yamlfield.Quote(r.GPU))
	case r.GPU != "":
	case len(types) == 1:
		r.GPU = types[0]
	default:
		p.ErrorAt(line, p.Join("pod_spec.spec", from), nil,
			"allows GPU types %s by %s, but Allot places a job on one GPU type; list values of one type, or pick one with resources.gpu",
			typeList(types), GPULabel)
	}
}

// podGPUTypes returns the sorted GPU types that the spec's nodeSelector
// and required node affinity allow by GPULabel (nil: any), the field that
// decided it, and a message when they allow none. An affinity restricts
// the type only when each of its terms (which are alternatives) has an In
// on GPULabel; other operators are left to the k8s-agent's check.
func podGPUTypes(spec *corev1.PodSpec) (types []string, from, msg string) {
	// An empty model names no type (Type would say "unknown", the type of
	// nodes without the label); the agent's check still applies.
	if v := spec.NodeSelector[GPULabel]; v != "" {
		types, from = []string{gpumodel.Type(v)}, "nodeSelector"
	}
	aff := affinityGPUTypes(spec)
	if aff == nil {
		return types, from, ""
	}
	if types == nil {
		return aff, "affinity", ""
	}
	if !slices.Contains(aff, types[0]) {
		return nil, "affinity", fmt.Sprintf("allows GPU types %s by %s, but nodeSelector selects %s: no node can match both",
			typeList(aff), GPULabel, typeList(types))
	}
	return types, from, ""
}

// affinityGPUTypes is the union, over the required node affinity's terms,
// of the types each term's In expressions on GPULabel allow; nil when a
// term does not restrict the label that way.
func affinityGPUTypes(spec *corev1.PodSpec) []string {
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return nil
	}
	var union []string
	for _, t := range terms {
		var term []string // nil: this term allows any type
		for _, e := range t.MatchExpressions {
			if e.Key != GPULabel || e.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			var these []string
			for _, v := range e.Values {
				if v != "" {
					these = append(these, gpumodel.Type(v))
				}
			}
			if these == nil {
				continue
			}
			if term == nil {
				term = these
			} else {
				// Expressions of one term must all hold.
				term = slices.DeleteFunc(term, func(s string) bool { return !slices.Contains(these, s) })
				if term == nil {
					term = []string{}
				}
			}
		}
		if term == nil {
			return nil
		}
		union = append(union, term...)
	}
	slices.Sort(union)
	return slices.Compact(union)
}

// allows says which types a constraint allows, for a message.
func allows(types []string) string {
	if len(types) == 1 {
		return "selects GPU type " + typeList(types)
	}
	return "allows GPU types " + typeList(types)
}

// typeList writes types for a message: "h100", or "a100, h100".
func typeList(types []string) string {
	q := make([]string, len(types))
	for i, t := range types {
		q[i] = yamlfield.Quote(t)
	}
	return strings.Join(q, ", ")
}
