package master

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestSubmitRefusesInfeasibleJobs: a job that no registered node could
// ever run is refused with 422, naming the field and the most that could
// fit; allow_infeasible queues it anyway; a pool no node has joined yet
// is not judged.
func TestSubmitRefusesInfeasibleJobs(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 8)
	h.agent("n2", 4)
	tests := []struct {
		name, spec, query string
		status            int
		field             string
		says              []string
	}{
		{"fits one node", jobSpec("ok", 8, ""), "", 201, "", nil},
		{"a gang over both nodes", jobSpec("gang", 12, ""), "", 201, "", nil},
		{"more GPUs than the pool", jobSpec("huge", 1000, ""), "", 422, "resources.slots",
			[]string{`job "huge" can never run`, "1000", "most that could fit is 12", "allow_infeasible=true"}},
		{"a GPU type no node has", jobSpec("a100", 1, `, "gpu": "a100"`), "", 422, "resources.gpu",
			[]string{"a100", "h100"}},
		{"min_slots above the pool", jobSpec("elastic", 64, `, "min_slots": 16`), "", 422, "resources.min_slots",
			[]string{"16", "12"}},
		{"allowed anyway", jobSpec("later", 1000, ""), "?allow_infeasible=true", 201, "", nil},
		{"bad allow value", jobSpec("later", 1000, ""), "?allow_infeasible=maybe", 400, "allow_infeasible", []string{"true or false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e api.Error
			code := h.do("POST", "/api/v1/jobs"+tt.query, tt.spec, &e)
			if code != tt.status || e.Field != tt.field {
				t.Fatalf("status %d field %q (%s), want %d field %q", code, e.Field, e.Error, tt.status, tt.field)
			}
			for _, s := range tt.says {
				if !strings.Contains(e.Error, s) {
					t.Errorf("error %q does not say %q", e.Error, s)
				}
			}
		})
	}
	var jobs []api.Job
	h.do("GET", "/api/v1/jobs", nil, &jobs)
	for _, j := range jobs {
		if j.Name == "huge" || j.Name == "a100" || j.Name == "elastic" {
			t.Errorf("refused job %q was stored", j.Name)
		}
	}
}

// TestSubmitRefusesInfeasibleZeroSlotJobs: a zero-slot task needs no GPU
// but is judged like any other for its licenses and GPU type: one asking
// for more of a license than exist would wait for ever.
func TestSubmitRefusesInfeasibleZeroSlotJobs(t *testing.T) {
	h := newHarness(t, withFeatures(t)) // licenses: {matlab: 1}
	h.agent("n1", 8)
	tests := []struct {
		name, spec string
		status     int
		field      string
		says       []string
	}{
		{"within the license total", jobSpec("lic1", 0, `, "licenses": {"matlab": 1}`), 201, "", nil},
		{"no license", jobSpec("cpu", 0, ""), 201, "", nil},
		{"more of a license than exist", jobSpec("lic2", 0, `, "licenses": {"matlab": 2}`), 422, "resources.licenses",
			[]string{`job "lic2" can never run`, "only 1 exist", "most that could fit is 1"}},
		{"a GPU type no node has", jobSpec("a100", 0, `, "gpu": "a100"`), 422, "resources.gpu",
			[]string{"a100", "h100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e api.Error
			code := h.do("POST", "/api/v1/jobs", tt.spec, &e)
			if code != tt.status || e.Field != tt.field {
				t.Fatalf("status %d field %q (%s), want %d field %q", code, e.Field, e.Error, tt.status, tt.field)
			}
			for _, s := range tt.says {
				if !strings.Contains(e.Error, s) {
					t.Errorf("error %q does not say %q", e.Error, s)
				}
			}
		})
	}
}

// TestSubmitSuggestsGPUType: a GPU type no node of the pool has, but
// that is a likely typo of one there, gets a did-you-mean after the types
// there, as a mistyped pool or flag does; one that is no typo gets none.
func TestSubmitSuggestsGPUType(t *testing.T) {
	h := newHarness(t)
	h.agent("n1", 8) // h100
	l40s := &mastertest.Agent{Master: h.srv.URL, Name: "n2", GPUs: 4, GPUType: "l40s", Token: h.tokenFor("/api/v1/agents/n2", nil)}
	if _, err := l40s.Register(h.ctx); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, gpu, says string // says: the did-you-mean, "" for none
	}{
		{"a letter short", "l40", `(types there: h100, l40s); did you mean "l40s"? Submit it with`},
		{"swapped letters", "1h00", `did you mean "h100"?`},
		{"no typo of any", "b200", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e api.Error
			code := h.do("POST", "/api/v1/jobs", jobSpec("typo", 1, fmt.Sprintf(`, "gpu": %q`, tt.gpu)), &e)
			if code != 422 || e.Field != "resources.gpu" {
				t.Fatalf("status %d field %q (%s), want 422 field resources.gpu", code, e.Field, e.Error)
			}
			if tt.says == "" && strings.Contains(e.Error, "did you mean") {
				t.Errorf("error %q suggests a type for %q, no typo of one", e.Error, tt.gpu)
			}
			if !strings.Contains(e.Error, tt.says) || !strings.Contains(e.Error, "types there: h100, l40s") {
				t.Errorf("error %q does not say %q", e.Error, tt.says)
			}
		})
	}
}

// TestSubmitGPUTypeSpelling: a GPU type matches the nodes' whatever its
// case and however the model is spelled, by the agents' rule (the type an
// agent reports for a detected GPU); a type that only another pool has is
// refused naming that pool.
func TestSubmitGPUTypeSpelling(t *testing.T) {
	cfg, err := config.Parse("pools.yaml", []byte(`default_pool: train
pools:
  - {name: train, policy: fifo}
  - {name: campus, policy: fifo}
`))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withConfig(cfg))
	for _, a := range []*mastertest.Agent{
		{Master: h.srv.URL, Name: "n1", GPUs: 8, GPUType: "h100", Pool: "train", Token: h.tokenFor("/api/v1/agents/n1", nil)},
		{Master: h.srv.URL, Name: "n2", GPUs: 4, GPUType: "l40s", Pool: "campus", Token: h.tokenFor("/api/v1/agents/n2", nil)},
	} {
		if _, err := a.Register(h.ctx); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, gpu string
		status    int
		says      string // the job's type when accepted, else the error's text
	}{
		{"upper case", "H100", 201, "h100"},
		{"the model's full name", "NVIDIA H100 80GB HBM3", 201, "h100"},
		{"a form factor's name", "H100-SXM5-80GB", 201, "h100"},
		{"a type of another pool", "L40S", 422, `no node of type l40s in pool train (types there: h100); l40s nodes are in pool campus (submit with pool: campus)`},
		{"no type at all", "---", 400, `expected a GPU type such as h100`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reply api.SubmitReply
			body := jobSpec("spelled", 1, fmt.Sprintf(`, "gpu": %q`, tt.gpu))
			if tt.status != 201 {
				var e api.Error
				if code := h.do("POST", "/api/v1/jobs", body, &e); code != tt.status || !strings.Contains(e.Error, tt.says) {
					t.Fatalf("status %d (%s), want %d saying %q", code, e.Error, tt.status, tt.says)
				}
				return
			}
			if code := h.do("POST", "/api/v1/jobs", body, &reply); code != 201 {
				t.Fatalf("status %d, want 201", code)
			}
			var j api.Job
			h.do("GET", fmt.Sprintf("/api/v1/jobs/%d", reply.ID), nil, &j)
			if j.GPU != tt.says {
				t.Errorf("job's GPU type %q, want %q", j.GPU, tt.says)
			}
		})
	}
}

// TestSubmitBeforeAnyNodeJoined: with no node registered there is nothing
// to judge by; the job is queued and waits.
func TestSubmitBeforeAnyNodeJoined(t *testing.T) {
	h := newHarness(t)
	id := h.submit(jobSpec("early", 1000, ""))
	if j := h.job(id); j.State != "queued" {
		t.Fatalf("job %s, want queued", j.State)
	}
}

// TestSubmitToPoolWithoutZeroSlotTasks: a job that asks for no GPU in a
// pool whose zero_slot_limit is 0 would wait for ever: refused with 422
// naming the pool and the setting, queued with allow_infeasible, and a
// GPU job there is accepted as usual.
func TestSubmitToPoolWithoutZeroSlotTasks(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - {name: default, policy: fifo, zero_slot_limit: 0}\n")))
	h.agent("n1", 4)
	var e api.Error
	if code := h.do("POST", "/api/v1/jobs", jobSpec("nb", 0, ""), &e); code != 422 || e.Field != "pool" ||
		!strings.Contains(e.Error, "pool default runs no zero-slot tasks (zero_slot_limit: 0)") {
		t.Fatalf("status %d field %q (%s), want 422 field pool naming zero_slot_limit: 0", code, e.Field, e.Error)
	}
	var r api.SubmitReply
	if code := h.do("POST", "/api/v1/jobs?"+AllowInfeasibleParam+"=true", jobSpec("nb", 0, ""), &r); code != 201 || r.ID == 0 {
		t.Fatalf("with %s: status %d %+v, want it queued", AllowInfeasibleParam, code, r)
	}
	if code := h.do("POST", "/api/v1/jobs", jobSpec("gpu", 1, ""), &r); code != 201 {
		t.Fatalf("a GPU job: status %d, want 201", code)
	}
}
