package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestSubmitPriorityClass (trial 2026-11-29c C9): --priority-class sets
// the job's class over the file's, for a file and --wrap alike; a job
// that names none is sent without a priority, so that the master can
// give it its project's cap, and one that names one is sent with it.
func TestSubmitPriorityClass(t *testing.T) {
	plain := writeTestFile(t, "plain.yaml", "name: x\nentrypoint: y\nresources:\n  slots: 1\n")
	high := writeTestFile(t, "high.yaml", "name: x\nentrypoint: y\nresources:\n  slots: 1\n  priority_class: HIGH\n")
	ten := writeTestFile(t, "ten.yaml", "name: x\nentrypoint: y\nresources: {priority: 10}\n")
	tests := []struct {
		name  string
		args  []string
		class string // resources.priority_class sent; "": none sent
		prio  float64
		err   string
	}{
		{"a file naming none: none sent", []string{"submit", plain}, "", 0, ""},
		{"--wrap naming none: none sent", []string{"submit", "--wrap", "x"}, "", 0, ""},
		{"--wrap LOW", []string{"submit", "--priority-class", "LOW", "--wrap", "x"}, "LOW", 80, ""},
		{"lower case, over a file's HIGH", []string{"submit", "--priority-class", "low", high}, "LOW", 80, ""},
		{"a file's class, as written", []string{"submit", high}, "HIGH", 10, ""},
		{"a file's number", []string{"submit", ten}, "HIGH", 10, ""},
		{"an unknown class", []string{"submit", "--priority-class", "urgent", plain}, "", 0,
			`--priority-class: expected one of HIGH, NORMAL, LOW, got "urgent"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMaster(t)
			_, _, err := runAt(t, f, tt.args...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Resources map[string]any `json:"resources"`
			}
			for i, r := range f.requests {
				if r == "POST /api/v1/jobs" {
					if err := json.Unmarshal([]byte(f.bodies[i]), &body); err != nil {
						t.Fatal(err)
					}
				}
			}
			class, _ := body.Resources["priority_class"].(string)
			prio, _ := body.Resources["priority"].(float64)
			if class != tt.class || prio != tt.prio {
				t.Errorf("sent priority_class %q priority %v, want %q %v (resources %v)", class, prio, tt.class, tt.prio, body.Resources)
			}
		})
	}
}

// TestSubmitPreemptibleAsWritten (C9 leftover): the job sent carries
// preemptible only where the job file names it, so that the master
// tells a user's preemptible: false (which it refuses on a job its LOW
// cap applies to) from its kind's default; --priority-class LOW sends
// none either (LOW work is preemptible). The master's refusal points at
// the file's preemptible line.
func TestSubmitPreemptibleAsWritten(t *testing.T) {
	plain := writeTestFile(t, "plain.yaml", "name: x\nentrypoint: y\nresources:\n  slots: 1\n")
	no := writeTestFile(t, "no.yaml", "name: x\nentrypoint: y\nresources:\n  slots: 1\n  preemptible: false\n")
	yes := writeTestFile(t, "yes.yaml", "name: x\nentrypoint: y\nresources:\n  preemptible: true\n")
	exp := writeTestFile(t, "exp.yaml", "name: x\nkind: experiment\nentrypoint: y\nhyperparameters:\n  lr: [0.1, 0.01]\nsearcher: {name: grid, max_concurrent_trials: 2}\n")
	tests := []struct {
		name string
		args []string
		want any // resources.preemptible sent; nil: none
	}{
		{"a command naming none", []string{"submit", plain}, nil},
		{"--wrap", []string{"submit", "--wrap", "x"}, nil},
		{"an experiment naming none", []string{"submit", exp}, nil},
		{"--priority-class LOW", []string{"submit", "--priority-class", "LOW", plain}, nil},
		{"false, as written", []string{"submit", no}, false},
		{"true, as written", []string{"submit", yes}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMaster(t)
			if _, _, err := runAt(t, f, tt.args...); err != nil {
				t.Fatal(err)
			}
			var body struct {
				Resources map[string]any `json:"resources"`
			}
			for i, r := range f.requests {
				if r == "POST /api/v1/jobs" {
					if err := json.Unmarshal([]byte(f.bodies[i]), &body); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := body.Resources["preemptible"]; got != tt.want {
				t.Errorf("sent preemptible %v, want %v (resources %v)", got, tt.want, body.Resources)
			}
		})
	}

	msg := "resources.preemptible: false: project guest caps its members' jobs at priority class LOW (max_priority_class), " +
		"which this job takes as it names no priority, and LOW work is always preemptible"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reply(w, http.StatusBadRequest, api.Error{Error: msg, Field: "resources.preemptible"})
	}))
	t.Cleanup(srv.Close)
	_, _, err := run(t, "--master", srv.URL, "submit", no)
	if err == nil || !strings.Contains(err.Error(), no+":5: "+msg) {
		t.Errorf("the master's refusal: %v, want it at %s:5", err, no)
	}
}
