package master

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestJobViewReadsBackHints: GET /jobs/{id} gives the job file's
// scheduling hints as the file names them, live and once the job ended,
// and what an elastic job holds now beside the slots it asked for.
func TestJobViewReadsBackHints(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, `
pools:
  - {name: default, policy: priority, preemption: true}
licenses: {matlab: 2}
`)))
	a := h.agent("n1", 2)
	elastic := h.submit(jobSpec("elastic", 4, `, "min_slots": 2, "max_slots": 4`))
	hinted := h.submit(jobSpec("hinted", 1, `, "gpu": "h100", "topology": "required", "licenses": {"matlab": 1},
		"qos": "high", "nice": 5, "checkpoint_every": 600`))
	plain := h.submit(jobSpec("plain", 1, ""))
	h.step()
	h.sync(a, a)
	want := map[int64]api.Job{
		elastic: {MinSlots: 2, MaxSlots: 4, Holding: 2},
		hinted: {GPU: "h100", Topology: "required", Licenses: map[string]int{"matlab": 1}, QOS: "high", Nice: 5,
			CheckpointEvery: 600},
		plain: {},
	}
	hints := func(v api.Job) api.Job {
		return api.Job{MinSlots: v.MinSlots, MaxSlots: v.MaxSlots, Holding: v.Holding, GPU: v.GPU, Topology: v.Topology,
			Licenses: v.Licenses, QOS: v.QOS, Nice: v.Nice, CheckpointEvery: v.CheckpointEvery}
	}
	for _, id := range []int64{elastic, hinted, plain} {
		t.Run(h.job(id).Name, func(t *testing.T) {
			v := h.job(id)
			if got := hints(v); !reflect.DeepEqual(got, want[id]) {
				t.Errorf("live view's hints %+v, want %+v", got, want[id])
			}
			if code := h.do("POST", "/api/v1/jobs/"+strconv.FormatInt(id, 10)+"/kill", nil, nil); code/100 != 2 {
				t.Fatalf("kill: %d", code)
			}
		})
	}
	h.sync(a, a)
	h.step()
	// Ended, the view comes from the stored record: the hints stay, and
	// nothing is held.
	ended := want[elastic]
	ended.Holding = 0
	if got := hints(h.job(elastic)); h.job(elastic).EndedAt == nil || !reflect.DeepEqual(got, ended) {
		t.Errorf("ended view's hints %+v (ended at %v), want %+v", got, h.job(elastic).EndedAt, ended)
	}
}
