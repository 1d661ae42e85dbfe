package master

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store/pgtest"
)

func withWallClock() harnessOption { return func(o *Options) { o.Clock = nil } }

// runLoop runs the master's loop until the benchmark ends.
func (h *harness) runLoop(b *testing.B) {
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan struct{})
	go func() { h.m.Run(ctx); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
}

// post sends body to the API's path as the admin, on client: the
// benchmarks' own clients, which keep their connections.
func (h *harness) post(client *http.Client, path, body string) (*http.Response, error) {
	req, err := http.NewRequest("POST", h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+h.admin)
	return client.Do(req)
}

// BenchmarkSubmit measures job submissions through the HTTP API, from
// concurrent clients, with the scheduling loop running. Besides jobs/s it
// reports the CPU time that every process of the test (the clients, the
// master, and PostgreSQL's server) spent per job, which other work on the
// machine disturbs much less.
func BenchmarkSubmit(b *testing.B) {
	backends := []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"sqlite", func(*testing.B) string { return "" }},
		{"postgres", func(b *testing.B) string { return pgtest.DSN(b) }},
	}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			h := newHarnessOn(b, be.dsn(b), b.TempDir(), withWallClock())
			h.runLoop(b)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			body := jobSpec("bench", 1, "")
			b.SetParallelism(8)
			b.ResetTimer()
			start := time.Now()
			cpu0, cpuOK := treeCPU()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := h.post(client, "/api/v1/jobs", body)
					if err != nil {
						b.Error(err)
						return
					}
					// Drain the body so that the connection is reused, as
					// any real client's would be: the benchmark measures
					// the master, not TCP handshakes.
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
			if cpu1, ok := treeCPU(); ok && cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/job")
			}
		})
	}
}

// BenchmarkSchedulingLatency measures the time from a submission's reply
// to the start command reaching a fake agent, over the real protocol, with
// 100 agents (8 GPUs each) syncing and 1,000 jobs queued that cannot run.
func BenchmarkSchedulingLatency(b *testing.B) {
	h := newHarnessOn(b, "", b.TempDir(), withWallClock(), func(o *Options) { o.SyncWait = 10 * time.Second })
	h.runLoop(b)
	var mu sync.Mutex
	started := map[string]chan struct{}{}
	onStart := func(s agent.TaskSpec) *mastertest.Exit {
		mu.Lock()
		if c, ok := started[s.Env["PROBE"]]; ok {
			close(c)
			delete(started, s.Env["PROBE"])
		}
		mu.Unlock()
		return &mastertest.Exit{Outcome: agent.OutcomeCompleted}
	}
	ctx, cancel := context.WithCancel(h.ctx)
	var wg sync.WaitGroup
	b.Cleanup(func() { cancel(); wg.Wait() })
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 200}}
	for i := range 100 {
		a := &mastertest.Agent{Master: h.srv.URL, Token: h.join, Name: fmt.Sprintf("node-%03d", i), GPUs: 8, WaitS: 10,
			OnStart: onStart, Client: client}
		wg.Add(1)
		go func() { defer wg.Done(); a.Run(ctx) }()
	}
	// Jobs bigger than the cluster are refused unless allowed: these are
	// the queue the probes pass.
	for range 1000 {
		if code := h.do("POST", "/api/v1/jobs?allow_infeasible=true", jobSpec("blocked", 801, `, "priority": 80`), nil); code != http.StatusCreated {
			b.Fatalf("submit a blocked job: status %d", code)
		}
	}
	for {
		var nodes []struct{ State string }
		h.do("GET", "/api/v1/nodes", nil, &nodes)
		if len(nodes) == 100 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.ResetTimer()
	var total time.Duration
	for i := range b.N {
		probe := strconv.Itoa(i)
		c := make(chan struct{})
		mu.Lock()
		started[probe] = c
		mu.Unlock()
		body := `{"name": "probe", "entrypoint": "e", "environment": {"PROBE": "` + probe + `"}}`
		submitted := time.Now()
		resp, err := h.post(client, "/api/v1/jobs", body)
		if err != nil {
			b.Fatal(err)
		}
		var reply api.SubmitReply
		err = json.NewDecoder(resp.Body).Decode(&reply)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		select {
		case <-c:
		case <-time.After(30 * time.Second):
			var x api.Explanation
			h.do("GET", "/api/v1/jobs/"+strconv.FormatInt(reply.ID, 10)+"/explain", nil, &x)
			b.Fatalf("probe %s (job %d) did not start in 30 s: %s", probe, reply.ID, x.Summary)
		}
		total += time.Since(submitted)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/start")
}
