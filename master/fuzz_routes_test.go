package master

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// FuzzRoutes sends every route of the API arbitrary path parameters and
// query strings, as the admin (and agent routes with the node's
// credential): the answer is a 2xx, or a 4xx carrying an api.Error, never
// a server error or a panic.
func FuzzRoutes(f *testing.F) {
	for i := range routes {
		f.Add(i, "1", "")
		f.Add(i, "n1", "state=queued&pool=default")
		f.Add(i, "-1", "task=0&after=-5&follow=true")
		f.Add(i, "99999999999999999999", "limit=0&since=yesterday")
		f.Add(i, "%00", "x=%zz&&=")
	}
	h := newHarness(f)
	handler := h.m.Handler()
	h.agent("n1", 2)
	h.submit(jobSpec("seed", 1, ""))
	h.step()
	f.Fuzz(func(t *testing.T, route int, param, query string) {
		r := routes[(route%len(routes)+len(routes))%len(routes)]
		path := r.path
		for strings.Contains(path, "{") {
			i, j := strings.Index(path, "{"), strings.Index(path, "}")
			path = path[:i] + url.PathEscape(param) + path[j+1:]
		}
		target := api.Version + path
		if query != "" {
			target += "?" + url.PathEscape(query)
			if q, err := url.ParseQuery(query); err == nil {
				target = api.Version + path + "?" + q.Encode()
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		var body []byte
		if r.method != "GET" {
			body = []byte("{}")
		}
		req := httptest.NewRequest(r.method, target, bytes.NewReader(body)).WithContext(ctx)
		req.Header.Set("Authorization", "Bearer "+h.tokenFor(path, nil))
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: status %d: %s", r.method, target, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var e api.Error
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("%s %s: status %d with body %q, want an api.Error", r.method, target, rec.Code, rec.Body)
			}
		}
	})
}

// FuzzAgentProtocol plays arbitrary sequences of agent messages against
// the master (registrations, syncs listing any attempts, running and exit
// reports for real and made-up attempts, scheduling passes between them)
// and checks after each step that no GPU is held twice, that the mirror
// agrees with the store about every task, and that nothing answers 5xx.
func FuzzAgentProtocol(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{2, 2, 3, 0x13, 2, 4, 2, 6, 1, 2})
	f.Add([]byte{5, 5, 2, 0x23, 0x33, 2, 7, 2, 2})
	// A job runs on n1, whose agent shuts down and registers again,
	// leaving (0x45), its syncs saying so, then restarts (5) and takes
	// work again.
	f.Add([]byte{0, 1, 2, 2, 0x45, 0, 1, 2, 3, 2, 2, 5, 1, 2, 2})
	f.Fuzz(agentProtocolRun)
}

// agentProtocolRun plays one sequence of FuzzAgentProtocol.
func agentProtocolRun(t *testing.T, ops []byte) {
	if len(ops) > 64 {
		ops = ops[:64]
	}
	// t.TempDir of a seed holds a '#', which a SQLite path may not.
	dir, err := os.MkdirTemp("", "allot-fuzz-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := newHarnessOn(t, "", dir)
	a := h.agent("n1", 2)
	b := h.agent("n2", 2)
	agents := []*mastertest.Agent{a, b}
	for i, op := range ops {
		ag := agents[int(op>>7)]
		arg := int(op>>3) & 0x0f
		switch op & 0x07 {
		case 0: // a job of 1 or 2 slots, preemptible or not
			extra := `, "preemptible": false`
			if arg&1 == 1 {
				extra = `, "preemptible": true`
			}
			var reply api.SubmitReply
			if code := h.do("POST", "/api/v1/jobs", jobSpec("j", 1+arg&1, extra), &reply); code >= 500 {
				t.Fatalf("step %d: submit: %d", i, code)
			}
		case 1:
			h.step()
		case 2:
			if _, err := ag.Sync(h.ctx, 0); err != nil && !protocolRefusal(err) {
				t.Fatalf("step %d: sync %s: %v", i, ag.Name, err)
			}
		case 3: // an attempt ends, with an outcome picked by arg
			if run := ag.Running(); len(run) > 0 {
				outcomes := []agent.Outcome{agent.OutcomeCompleted, agent.OutcomeFailed, agent.OutcomePreempted, agent.OutcomeKilled}
				ag.Exit(run[arg%len(run)], outcomes[arg%len(outcomes)], arg)
			}
		case 4: // a report on an attempt that does not exist
			ag.Inject(api.Report{Task: agent.TaskID{JobID: "1", TaskIndex: arg, Attempt: arg + 7}, Event: api.EventExited,
				Outcome: string(agent.OutcomeCompleted)})
		case 5: // the agent restarts: forgets its tasks and registers again;
			// with arg 8 and up, it shuts down instead, and registers again
			// as itself, saying it leaves, as agentd does after a 404
			register := ag.Register
			if arg&8 != 0 {
				ag.Leave()
				register = ag.Rejoin
			} else {
				ag.Restart()
			}
			if _, err := register(h.ctx); err != nil && !protocolRefusal(err) {
				t.Fatalf("step %d: register %s: %v", i, ag.Name, err)
			}
		case 6: // time passes: the agent timeout may lose a silent node
			h.clock.Advance(time.Duration(arg+1) * 5 * time.Second)
			h.m.Tick(h.ctx)
		case 7: // a user kills a job
			h.do("POST", "/api/v1/jobs/"+string(rune('1'+arg%4))+"/kill", nil, nil)
		}
		checkMirror(t, h, i)
	}
}

// protocolRefusal reports whether err is an answer the protocol allows a
// confused agent: 404 (register again), 403 or 409.
func protocolRefusal(err error) bool {
	if errors.Is(err, mastertest.ErrNotRegistered) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"404", "403", "409", "not registered"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// checkMirror checks that no GPU is held by two tasks, that every task
// of the mirror is in the state the store has, and that the open set
// (Master.open, which the time limits scan) is the tasks with an open
// attempt.
func checkMirror(t *testing.T, h *harness, step int) {
	t.Helper()
	h.m.lock()
	defer h.m.mu.Unlock()
	for name, n := range h.m.nodes {
		seen := map[*mtask]int{}
		for gpu, task := range n.used {
			if task.att == nil {
				t.Fatalf("step %d: node %s GPU %d held by task %s with no open attempt", step, name, gpu, task.id())
			}
			p := task.part(name)
			if p == nil {
				t.Fatalf("step %d: node %s GPU %d held by task %s, which has no part there", step, name, gpu, task.id())
			}
			seen[task]++
		}
		for task, n := range seen {
			if p := task.part(name); n != len(p.gpus) {
				t.Fatalf("step %d: task %s holds %d GPUs of %s, its part has %v", step, task.id(), n, name, p.gpus)
			}
		}
	}
	open := 0
	for id, j := range h.m.jobs {
		recs, err := h.st.Tasks(h.ctx, store.TaskFilter{JobID: id})
		if err != nil {
			t.Fatal(err)
		}
		for i, task := range j.tasks {
			if i >= len(recs) || recs[i].State != task.rec.State {
				t.Fatalf("step %d: job %d task %d is %s in the mirror but %v in the store", step, id, i, task.rec.State, recs)
			}
			if _, in := h.m.open[task]; in != (task.att != nil) {
				t.Fatalf("step %d: task %s: in the open set %t, open attempt %t", step, task.id(), in, task.att != nil)
			}
			if task.att != nil {
				open++
			}
		}
	}
	if open != len(h.m.open) {
		t.Fatalf("step %d: %d tasks have an open attempt, the open set has %d", step, open, len(h.m.open))
	}
}
