package jobfile

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseScheduling(t *testing.T) {
	base := Resources{Slots: 8, Priority: 42, PriorityClass: ClassNormal, Weight: 1}
	with := func(f func(r *Resources)) Resources {
		r := base
		f(&r)
		return r
	}
	tests := []struct {
		name string
		src  string // the resources mapping's other fields
		want Resources
	}{
		{"none", "", base},
		{"elastic", "min_slots: 2", with(func(r *Resources) { r.MinSlots = 2 })},
		{"elastic down to its size", "min_slots: 8", with(func(r *Resources) { r.MinSlots = 8 })},
		{"gpu type", "gpu: h100", with(func(r *Resources) { r.GPU = "h100" })},
		{"topology required", "topology: required", with(func(r *Resources) { r.Topology = TopologyRequired })},
		{"topology prefer", "topology: prefer", with(func(r *Resources) { r.Topology = TopologyPrefer })},
		{"licenses", "licenses: {matlab: 2, comsol: 1}", with(func(r *Resources) { r.Licenses = map[string]int{"matlab": 2, "comsol": 1} })},
		{"no licenses", "licenses: {}", base},
		{"null licenses", "licenses: ~", base},
		{"qos", "qos: emergency", with(func(r *Resources) { r.QOS = "emergency" })},
		{"nice", "nice: 500", with(func(r *Resources) { r.Nice = 500 })},
		{"checkpoint interval", "checkpoint_every: 10m", with(func(r *Resources) { r.CheckpointEvery = 600 })},
		{"on_preempt fail", "preemptible: true, on_preempt: fail", with(func(r *Resources) { r.Preemptible, r.OnPreempt = true, OnPreemptFail })},
		{"max_retries", "preemptible: true, on_preempt: reschedule, max_retries: 3", with(func(r *Resources) {
			r.Preemptible, r.OnPreempt, r.MaxRetries = true, OnPreemptReschedule, new(int)
			*r.MaxRetries = 3
		})},
		{"max_retries 0", "preemptible: true, max_retries: 0", with(func(r *Resources) { r.Preemptible, r.MaxRetries = true, new(int) })},
		// A job that is not preemptible gives them too: they govern its
		// lost attempts, its agent's preemptions and its owner's allot
		// job requeue (docs/jobfile.md, Exit actions).
		{"on_preempt on a job that is not preemptible", "on_preempt: fail", with(func(r *Resources) { r.OnPreempt = OnPreemptFail })},
		{"max_retries on a job that is not preemptible", "preemptible: false, max_retries: 2", with(func(r *Resources) {
			r.MaxRetries = new(int)
			*r.MaxRetries = 2
		})},
		{"max_retries 0 on a job that is not preemptible", "max_retries: 0", with(func(r *Resources) { r.MaxRetries = new(int) })},
		{"LOW work gives exit actions", "priority_class: LOW, max_retries: 1", with(func(r *Resources) {
			r.Priority, r.PriorityClass, r.Preemptible, r.MaxRetries = 80, ClassLow, true, new(int)
			*r.MaxRetries = 1
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + "resources: {slots: 8"
			if tt.src != "" {
				src += ", " + tt.src
			}
			j := mustParse(t, src+"}\n")
			if !reflect.DeepEqual(j.Resources, tt.want) {
				t.Errorf("resources = %+v\nwant %+v", j.Resources, tt.want)
			}
			data, err := json.Marshal(j)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseJSON("round trip", data)
			if err != nil || !reflect.DeepEqual(back, j) {
				t.Errorf("JSON round trip of %s: %+v, %v", data, back, err)
			}
		})
	}
}

func TestParseErrorsScheduling(t *testing.T) {
	res := func(fields string) string { return head + "resources: {" + fields + "}\n" }
	runErrorCases(t, Parse, []errorCase{
		{"min slots zero", res("min_slots: 0"), 3, "resources.min_slots: expected an integer >= 1, got 0"},
		{"min slots above slots", res("slots: 2, min_slots: 4"), 3, "resources.min_slots: min_slots 4 is more than the 2 slots of one task (slots, default 1)"},
		{"min slots above the default slot", res("min_slots: 10"), 3, "resources.min_slots: min_slots 10 is more than the 1 slot of one task (slots, default 1)"},
		{"elastic zero-slot task", res("slots: 0, min_slots: 1"), 3, "resources.min_slots: a zero-slot task cannot be elastic"},
		{"gpu empty", res("gpu: ''"), 3, `resources.gpu: expected a non-empty name, got ""`},
		{"gpu not a string", res("gpu: [a]"), 3, "resources.gpu: expected a string, got a list"},
		{"topology unknown", res("topology: strict"), 3, `resources.topology: unknown topology "strict" (expected one of prefer, required)`},
		{"licenses not a mapping", res("licenses: [matlab]"), 3, "resources.licenses: expected a mapping"},
		{"license count zero", res("licenses: {matlab: 0}"), 3, "resources.licenses.matlab: expected an integer >= 1, got 0"},
		{"license count string", res(`licenses: {matlab: "2"}`), 3, `resources.licenses.matlab: expected an integer >= 1, got "2"`},
		{"license name empty", res("licenses: {'': 1}"), 3, `resources.licenses: expected a non-empty name, got ""`},
		{"qos empty", res("qos: ''"), 3, `resources.qos: expected a non-empty name, got ""`},
		{"negative nice", res("nice: -5"), 3, "resources.nice: expected an integer from 0 to 1000000000, got -5"},
		{"checkpoint zero", res("checkpoint_every: 0"), 3, "resources.checkpoint_every: expected a duration > 0, got 0"},
		{"unknown field", res("min_slot: 1"), 3, `unknown field "min_slot"; did you mean "min_slots"?`},
		{"on_preempt unknown", res("preemptible: true, on_preempt: retry"), 3,
			`resources.on_preempt: unknown on_preempt "retry" (expected one of reschedule, fail)`},
		{"max_retries negative", res("preemptible: true, max_retries: -1"), 3, "resources.max_retries: expected an integer >= 0, got -1"},
		{"max_retries string", res("preemptible: true, max_retries: '2'"), 3, `resources.max_retries: expected an integer >= 0, got "2"`},
	})
	runErrorCases(t, ParseJSON, []errorCase{
		{"json license count float", `{"name": "j", "entrypoint": "e", "resources": {"licenses": {"matlab": 1.5}}}`, 1,
			"resources.licenses.matlab: expected an integer >= 1, got 1.5"},
		{"json nice string", `{"name": "j", "entrypoint": "e", "resources": {"nice": "1"}}`, 1,
			`resources.nice: expected an integer from 0 to 1000000000, got "1"`},
	})
}
