package agentd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// FuzzMasterReply feeds the agent arbitrary replies from the master (any
// status, any body) and runs every command it decodes through the checks
// a start or stop goes through before anything runs: nothing panics, a
// reply is either decoded or an error, and every start that passes the
// checks names this node's GPUs and an absolute working directory.
// Nothing is executed: the commands come from the fuzzer.
func FuzzMasterReply(f *testing.F) {
	f.Add(200, []byte(`{"commands": [{"type": "start", "task": {"job_id": "1", "task_index": 0, "attempt": 1},
		"start": {"job_id": "1", "task_index": 0, "attempt": 1, "entrypoint": "true", "gpus": [0, 1]}}]}`))
	f.Add(200, []byte(`{"commands": [{"type": "kill", "task": {"job_id": "1", "task_index": 0, "attempt": 1}, "grace_s": 5}]}`))
	f.Add(200, []byte(`{"commands": [{"type": "start", "start": {"job_id": "..", "work_dir": "rel", "gpus": [9]}}]}`))
	f.Add(200, []byte(`{"acked": -1, "commands": null}`))
	f.Add(404, []byte(`{"error": "node is not registered"}`))
	f.Add(503, []byte("<html>"))
	f.Add(200, []byte(`{"commands": [{"type": "start", "start": {"job_id": "1", "entrypoint": "x", "hyperparameters": [1]}}]}`))
	var status int
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		w.Write(body)
	}))
	f.Cleanup(srv.Close)
	dir := f.TempDir()
	a, err := New(Config{Master: srv.URL, Name: "node-1", Pool: "default", GPUs: agent.Fake(2, "h100"), WorkDir: dir})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, st int, data []byte) {
		if st < 200 || st > 599 { // 1xx are interim answers, not replies
			st = 200 + (st%400+400)%400
		}
		status, body = st, data
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var reply api.SyncReply
		err := a.post(ctx, "/agents/node-1/sync", 5*time.Second, api.Sync{}, &reply)
		if st < 200 || st > 299 {
			if err == nil {
				t.Fatalf("status %d accepted", st)
			}
			return
		}
		if err != nil {
			return
		}
		for _, c := range reply.Commands {
			if c.Type != api.CommandStart || c.Start == nil {
				continue
			}
			spec := *c.Start
			if a.prepare(&spec) != nil || spec.Validate() != nil {
				continue
			}
			if !filepath.IsAbs(spec.WorkDir) {
				t.Fatalf("accepted a start with work dir %q", spec.WorkDir)
			}
			if spec.WorkDir == filepath.Join(dir, JobsDirName) || strings.Contains(spec.JobID, "/") && strings.HasPrefix(spec.WorkDir, dir) {
				t.Fatalf("job id %q escapes to work dir %q", spec.JobID, spec.WorkDir)
			}
			for _, g := range spec.GPUs {
				if g < 0 || g > 1 {
					t.Fatalf("accepted a start on GPU %d of a 2-GPU node", g)
				}
			}
		}
	})
}
