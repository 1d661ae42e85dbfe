package mastertest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// fakeMaster answers registrations with one start command and records
// what each registration and sync lists running and exited. Every
// registration gets the same start: the agent must not run again an
// attempt whose exit it holds.
type fakeMaster struct {
	mu    sync.Mutex
	lists map[string][2][]agent.TaskID // by "register" or "sync": running, exited
}

func (f *fakeMaster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Running []agent.TaskID `json:"running"`
		Exited  []agent.TaskID `json:"exited"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	kind := "sync"
	var reply any = api.SyncReply{}
	if r.URL.Path == api.Version+"/agents/register" {
		kind = "register"
		start := &agent.TaskSpec{JobID: "1", TaskIndex: 0, Attempt: 1}
		reply = api.RegisterReply{Commands: []api.Command{{Type: api.CommandStart, Start: start}}}
	}
	f.mu.Lock()
	f.lists[kind] = [2][]agent.TaskID{body.Running, body.Exited}
	f.mu.Unlock()
	json.NewEncoder(w).Encode(reply)
}

// TestHoldExit: an attempt whose exit HoldExit holds back is listed
// exited, not running, by the syncs and the registrations alike, as
// agentd lists it, until its exit is reported (Exit, or an exit report
// Injected); one never run cannot be held.
func TestHoldExit(t *testing.T) {
	id := agent.TaskID{JobID: "1", TaskIndex: 0, Attempt: 1}
	for _, tc := range []struct {
		name string
		end  func(a *Agent)
	}{
		{"ended by Exit", func(a *Agent) {
			if !a.Exit(id, agent.OutcomeCompleted, 0) {
				t.Error("Exit of the held attempt: false")
			}
		}},
		{"ended by an injected exit report", func(a *Agent) {
			code := 0
			a.Inject(api.Report{Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeCompleted), ExitCode: &code})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeMaster{lists: map[string][2][]agent.TaskID{}}
			srv := httptest.NewServer(f)
			defer srv.Close()
			a := &Agent{Master: srv.URL, Name: "n1", GPUs: 1}
			ctx := context.Background()
			if _, err := a.Register(ctx); err != nil {
				t.Fatal(err)
			}
			if a.HoldExit(agent.TaskID{JobID: "9", Attempt: 1}) {
				t.Error("HoldExit of an attempt never run: true")
			}
			if !a.HoldExit(id) {
				t.Fatal("HoldExit of the running attempt: false")
			}
			held := [2][]agent.TaskID{nil, {id}}
			if _, err := a.Register(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := a.Sync(ctx, 0); err != nil {
				t.Fatal(err)
			}
			for _, kind := range []string{"register", "sync"} {
				if got := f.lists[kind]; len(got[0]) != 0 || !slices.Equal(got[1], held[1]) {
					t.Errorf("%s lists running %v, exited %v; want none running, %v exited", kind, got[0], got[1], held[1])
				}
			}
			tc.end(a)
			if _, err := a.Sync(ctx, 0); err != nil {
				t.Fatal(err)
			}
			if got := f.lists["sync"]; len(got[0])+len(got[1]) != 0 {
				t.Errorf("after its exit, the sync lists running %v, exited %v; want neither", got[0], got[1])
			}
		})
	}
}
