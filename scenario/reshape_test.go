package scenario

import (
	"reflect"
	"testing"
)

// TestNodeReshapeEvent: a node_reshape gives its node's new slots, GPU
// type and labels, and a job that fits only a node's later shape is no
// error, one that fits none still is.
func TestNodeReshapeEvent(t *testing.T) {
	s, err := Parse("r.yaml", []byte(jobs+`  - {name: big, slots: 12, gpu: a100}
events:
  - {at: 1h, node_reshape: {node: g-1, slots: 12, gpu: a100, labels: {rack: r2}}}
  - {at: 2h, node_reshape: {node: c, slots: 2}}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []*Node{{Slots: 12, GPU: "a100"}, {Slots: 2}}
	want[0].Name, want[0].Labels, want[1].Name = "g-1", map[string]string{"rack": "r2"}, "c"
	for i, e := range s.Events {
		e.Shape.Line = 0
		if e.Kind != EventNodeReshape || e.Node != want[i].Name || !reflect.DeepEqual(e.Shape, want[i]) {
			t.Errorf("event %d: %s of %s to %+v, want node_reshape of %s to %+v", i, e.Kind, e.Node, e.Shape, want[i].Name, want[i])
		}
	}
	runErrorCases(t, []errorCase{
		{"a job larger than any shape", jobs + "  - {name: big, slots: 13, gpu: a100}\nevents:\n  - {at: 1h, node_reshape: {node: g-1, slots: 12, gpu: a100}}\n", 12,
			`jobs[1] "big": slots: a task needs 13 slots, but pool "gpu" has only 12 of GPU type "a100"`},
	})
}

// TestNodeReshapeMovesPool: a node_reshape with a pool moves its node
// there, which counts in that pool's capacity for the file's jobs, and
// writes back as it reads.
func TestNodeReshapeMovesPool(t *testing.T) {
	src := jobs + `  - {name: wide, pool: cpu, slots: 8}
events:
  - {at: 1h, node_reshape: {node: g-2, slots: 8, pool: cpu}}
  - {at: 2h, node_reshape: {node: c, slots: 4}}
`
	s, err := Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{s.Events[0].Pool, s.Events[1].Pool}; !reflect.DeepEqual(got, []string{"cpu", ""}) {
		t.Errorf("pools %q, want cpu then none", got)
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("m.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if back.Events[0].Pool != "cpu" || back.Events[1].Pool != "" {
		t.Errorf("written back as %q and %q:\n%s", back.Events[0].Pool, back.Events[1].Pool, out)
	}
	runErrorCases(t, []errorCase{
		{"a job larger than the moved node", jobs + "  - {name: wide, pool: cpu, slots: 13}\nevents:\n  - {at: 1h, node_reshape: {node: g-2, slots: 8, pool: cpu}}\n", 12,
			`jobs[1] "wide": slots: a task needs 13 slots, but pool "cpu" has only 12`},
	})
}
