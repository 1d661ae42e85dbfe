package jobfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/allot-sched/allot/yamlfield"
)

// MaxPodSpecBytes bounds a job's pod_spec as JSON: the master stores it
// with the job and sends it with every start.
const MaxPodSpecBytes = 256 << 10

// ReservedLabelPrefix marks the pod labels and annotations that the
// Kubernetes backend sets itself (job, task, attempt, node, the stop it
// asked for), by which it finds and follows its pods.
const ReservedLabelPrefix = "allot.dev/"

// podSpec accepts the pod template of a job run on Kubernetes, in the
// shape of Determined's environment.pod_spec: an optional apiVersion v1
// and kind Pod, metadata with labels and annotations, and a spec that
// must decode as a Kubernetes PodSpec. Allot owns the pod's name,
// namespace, node and restart policy, so the file may not set them. The
// result is compact JSON with sorted keys, so that a Job survives
// json.Marshal and ParseJSON unchanged; null is none.
func podSpec(p *yamlfield.Parser, raw *yaml.Node, path string) (json.RawMessage, bool) {
	if yamlfield.IsNull(raw) {
		return nil, true
	}
	f, ok := p.Fields(raw, path)
	if !ok {
		return nil, false
	}
	before := p.Count()
	constant(f, "apiVersion", "v1")
	constant(f, "kind", "Pod")
	meta := podMetadata(p, f)
	if n := f.Lookup("spec"); n != nil && !yamlfield.IsNull(n) {
		podSpecBody(p, n, p.Join(path, "spec"))
	}
	f.Done()
	if p.Count() != before {
		return nil, false
	}
	v, err := plain(p, raw)
	if err != nil {
		p.Errorf(raw, path, "%v", err)
		return nil, false
	}
	if m, ok := v.(map[string]any); ok && len(meta) > 0 {
		// Label values written as numbers (min-available: 8) are
		// strings to Kubernetes.
		m["metadata"] = meta
	}
	out, err := json.Marshal(v)
	switch {
	case err != nil:
		p.Errorf(raw, path, "cannot be written as JSON: %v", err)
		return nil, false
	case len(out) > MaxPodSpecBytes:
		p.Errorf(raw, path, "expected at most %d bytes as JSON, got %d", MaxPodSpecBytes, len(out))
		return nil, false
	}
	return out, true
}

// constant accepts key only with the one value Allot supports.
func constant(f *yamlfield.Fields, key, want string) {
	n := f.Lookup(key)
	if n == nil {
		return
	}
	if s, ok := yamlfield.Scalar(n, "!!str"); !ok || s.Value != want {
		f.Errorf(key, "expected %s (or leave it out)", yamlfield.Quote(want))
	}
}

// podMetadata accepts labels and annotations, as mappings of strings
// (keys under allot.dev/ are the backend's), and returns them.
func podMetadata(p *yamlfield.Parser, f *yamlfield.Fields) map[string]any {
	n := f.Lookup("metadata")
	if n == nil || yamlfield.IsNull(n) {
		return nil
	}
	path := p.Join(f.Path, "metadata")
	m, ok := p.Fields(n, path)
	if !ok {
		return nil
	}
	out := map[string]any{}
	for _, key := range []string{"labels", "annotations"} {
		var kv map[string]string
		if !yamlfield.Field(m, key, &kv, stringMap) || kv == nil {
			continue
		}
		out[key] = kv
		for k := range kv {
			if strings.HasPrefix(k, ReservedLabelPrefix) {
				m.Errorf(key, "%s: keys under %s are set by Allot, which finds and follows its pods by them", yamlfield.Quote(k), ReservedLabelPrefix)
			}
		}
	}
	for _, key := range []string{"name", "generateName", "namespace"} {
		if m.Has(key) {
			m.Errorf(key, "Allot names the pod and runs it in the backend's namespace; leave %s out", key)
		}
	}
	m.Done()
	return out
}

// stringMap accepts a mapping of strings to strings.
func stringMap(p *yamlfield.Parser, raw *yaml.Node, path string) (map[string]string, bool) {
	return p.StringMap(raw, path, func(pr yamlfield.Pair, path string) (string, bool) {
		n, ok := yamlfield.Scalar(pr.Val, "!!str", "!!int", "!!float", "!!bool")
		if !ok {
			p.Errorf(pr.Val, path, "expected a string, got %s", p.Describe(n))
			return "", false
		}
		return n.Value, true
	})
}

// podSpecBody checks the spec as Kubernetes would decode it, and the
// fields that Allot sets itself.
func podSpecBody(p *yamlfield.Parser, raw *yaml.Node, path string) {
	v, err := plain(p, raw)
	if err != nil {
		p.Errorf(raw, path, "%v", err)
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		p.Errorf(raw, path, "cannot be written as JSON: %v", err)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var spec corev1.PodSpec
	if err := dec.Decode(&spec); err != nil {
		p.Errorf(raw, path, "not a Kubernetes PodSpec: %s", strings.TrimPrefix(err.Error(), "json: "))
		return
	}
	switch {
	case spec.NodeName != "":
		p.Errorf(raw, p.Join(path, "nodeName"), "Allot places the pod on the node its scheduler chose; leave nodeName out (use nodeSelector or a pool to steer it)")
	case spec.RestartPolicy != "" && spec.RestartPolicy != corev1.RestartPolicyNever:
		p.Errorf(raw, p.Join(path, "restartPolicy"), "expected Never (or leave it out): Allot restarts failed tasks itself, per the job's policy, got %s", yamlfield.Quote(string(spec.RestartPolicy)))
	}
	seen := map[string]bool{}
	for i, c := range spec.Containers {
		cpath := yamlfield.Index(p.Join(path, "containers"), i)
		switch {
		case c.Name == "":
			p.Errorf(raw, p.Join(cpath, "name"), "missing: every container needs a name")
		case seen[c.Name]:
			p.Errorf(raw, p.Join(cpath, "name"), "container name %s is used twice", yamlfield.Quote(c.Name))
		case c.Image == "":
			p.Errorf(raw, p.Join(cpath, "image"), "missing: every container needs an image")
		}
		seen[c.Name] = true
	}
}

// plain turns a YAML value into the plain Go values encoding/json writes:
// maps with string keys, slices, strings, numbers, booleans and nil.
func plain(p *yamlfield.Parser, n *yaml.Node) (any, error) {
	n = yamlfield.Resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		prs, ok := p.Pairs(n, "")
		if !ok {
			return nil, fmt.Errorf("expected a mapping")
		}
		out := make(map[string]any, len(prs))
		for _, pr := range prs {
			if pr.Key.ShortTag() != "!!str" {
				return nil, fmt.Errorf("line %d: keys must be strings, got %s", pr.Key.Line, yamlfield.Quote(pr.Key.Value))
			}
			v, err := plain(p, pr.Val)
			if err != nil {
				return nil, err
			}
			out[pr.Key.Value] = v
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := plain(p, c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return plainScalar(n)
}

func plainScalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if yamlfield.DecodeScalar(n, &b) {
			return b, nil
		}
	case "!!int":
		var i int64
		if yamlfield.DecodeScalar(n, &i) {
			return i, nil
		}
	case "!!float":
		var f float64
		if yamlfield.DecodeScalar(n, &f) && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, nil
		}
	case "!!str":
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: %s cannot be written as JSON", n.Line, yamlfield.Quote(n.Value))
}
