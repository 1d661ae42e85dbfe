package master

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestEndToEnd runs the master's own loop with fake agents syncing over
// HTTP until an experiment and a few commands have all completed.
func TestEndToEnd(t *testing.T) {
	h := newHarness(t, withWallClock())
	ctx, cancel := context.WithCancel(h.ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	wg.Add(1)
	go func() { defer wg.Done(); h.m.Run(ctx) }()
	for i := range 3 {
		a := &mastertest.Agent{Master: h.srv.URL, Token: h.join, Name: fmt.Sprintf("n%d", i), GPUs: 2, WaitS: 1,
			OnStart: func(agent.TaskSpec) *mastertest.Exit {
				return &mastertest.Exit{Outcome: agent.OutcomeCompleted, After: time.Millisecond}
			}}
		wg.Add(1)
		go func() { defer wg.Done(); a.Run(ctx) }()
	}
	h.submit(`{"name": "hp", "entrypoint": "train", "resources": {"slots": 1},
		"hyperparameters": {"lr": {"type": "categorical", "vals": [1, 2, 3, 4, 5, 6, 7, 8]}},
		"searcher": {"name": "grid", "max_concurrent_trials": 4}}`)
	for i := range 4 {
		h.submit(jobSpec(fmt.Sprintf("cmd-%d", i), 2, ""))
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var jobs []api.Job
		h.do("GET", "/api/v1/jobs?state=completed", nil, &jobs)
		if len(jobs) == 5 {
			return
		}
		if time.Now().After(deadline) {
			var all []api.Job
			h.do("GET", "/api/v1/jobs", nil, &all)
			t.Fatalf("after 30 s, %d of 5 jobs completed: %+v", len(jobs), all)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
