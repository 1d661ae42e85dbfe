package scenario

import (
	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/spec"
)

// searchFields writes what a job with a searcher says instead of tasks
// and duration: step_time, the searcher with every field (defaults
// included, so that the file does not depend on them), and the trials'
// curves as points. A curve given as a formula comes back as the points
// the parser computed from it, which replay the same: the searcher only
// ever sees points.
func searchFields(m spec.Mapping, j *Job) {
	s := j.Searcher
	m.Set("step_time", j.StepTime)
	sm := spec.NewMapping()
	sm.Set("name", s.Name)
	sm.Set("metric", s.Metric)
	sm.Set("smaller_is_better", s.SmallerIsBetter)
	sm.Set("max_length", s.MaxLength)
	sm.Set("divisor", s.Divisor)
	sm.Set("num_rungs", s.NumRungs)
	sm.Set("brackets", s.Brackets)
	sm.Set("max_trials", s.MaxTrials)
	m.Set("searcher", sm.Node)
	trials := make([]*yaml.Node, len(j.Curves))
	for i, c := range j.Curves {
		pts := make([]*yaml.Node, len(c))
		for k, p := range c {
			pair := spec.Seq([]*yaml.Node{encodeValue(p.Step), encodeValue(p.Value)})
			pair.Style = yaml.FlowStyle
			pts[k] = pair
		}
		tm := spec.NewMapping()
		tm.Set("metric", spec.Seq(pts))
		trials[i] = tm.Node
	}
	m.Set("trials", spec.Seq(trials))
}

// encodeValue is a number as a YAML node.
func encodeValue(v any) *yaml.Node {
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		panic("scenario: encode a number: " + err.Error()) // numbers always encode
	}
	return n
}
