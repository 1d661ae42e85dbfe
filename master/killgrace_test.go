package master

import (
	"fmt"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// lastKill is the last kill command an agent got; ok is false for none.
func lastKill(a *mastertest.Agent) (c api.Command, ok bool) {
	for _, cmd := range a.Commands() {
		if cmd.Type == api.CommandKill {
			c, ok = cmd, true
		}
	}
	return c, ok
}

// TestKillSendsPoolKillGrace: a kill (the API's, a time limit's) sends the
// job's pool's kill_grace with the command (the default without one, 0
// where the pool says 0); the task stays killing until the agent reports
// the end; a restarted master sends the grace again for a task it finds
// killing.
func TestKillSendsPoolKillGrace(t *testing.T) {
	tests := []struct {
		name      string
		pool      string
		timeLimit bool
		want      int64
	}{
		{"the default", "{name: default, policy: fifo}", false, int64(config.DefaultKillGrace / time.Second)},
		{"the pool's", "{name: default, policy: fifo, kill_grace: 5s}", false, 5},
		{"at once", "{name: default, policy: fifo, kill_grace: 0}", false, 0},
		{"a time limit's", "{name: default, policy: fifo, kill_grace: 2m}", true, 120},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, "pools:\n  - "+tt.pool+"\n")))
			a := h.agent("n1", 4)
			a.HoldKill = true
			extra := ""
			if tt.timeLimit {
				extra = `, "time_limit": 60`
			}
			id := h.submit(jobSpec("train", 1, extra))
			h.step()
			h.sync(a, a)
			if tt.timeLimit {
				for range 4 { // past the limit, the node kept up
					h.clock.Advance(16 * time.Second)
					h.sync(a)
				}
				h.m.Tick(h.ctx)
			} else if code := h.do("POST", fmt.Sprintf("/api/v1/jobs/%d/kill", id), nil, nil); code != 200 {
				t.Fatalf("kill: %d", code)
			}
			h.sync(a)
			c, ok := lastKill(a)
			if !ok || c.Task != tid(id, 0, 1) || c.GraceS != tt.want {
				t.Fatalf("kill command %+v (sent: %v), want one for %v with grace_s %d", c, ok, tid(id, 0, 1), tt.want)
			}
			if tt.want == 0 {
				return // the fake agent ended it at once
			}
			if got := h.taskState(id, 0); got != store.TaskKilling {
				t.Fatalf("task %s while its agent takes the grace, want killing", got)
			}
			before := len(a.Commands())
			h.start() // a restart finds the task killing and kills it again
			a.Master = h.srv.URL
			if _, err := a.Rejoin(h.ctx); err != nil {
				t.Fatal(err)
			}
			h.sync(a)
			c, ok = lastKill(a)
			if len(a.Commands()) == before || !ok || c.GraceS != tt.want {
				t.Fatalf("after a restart: kill command %+v (commands %d, were %d), want grace_s %d", c, len(a.Commands()), before, tt.want)
			}
			a.Exit(tid(id, 0, 1), "killed", -1)
			h.sync(a)
			if got := h.taskState(id, 0); got != store.TaskKilled {
				t.Fatalf("task %s once its agent reported the end, want killed", got)
			}
		})
	}
}
