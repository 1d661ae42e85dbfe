package master

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
	"github.com/allot-sched/allot/store"
)

// TestGangLogsAfterTheEnd: a gang's parts number their lines on their
// own, and the master spreads them (gangSeq) by the attempt's placement
// whether the lines come while the attempt runs or after it ended, from
// the mirror or from the store (the job gone from the mirror, or the
// master restarted): no part's line is lost to another's of the same
// number, and a line sent again lands on the number it had. A task on
// one node keeps its agent's numbers. Each line read back names the part
// that printed it (rank and node), a single node's none.
func TestGangLogsAfterTheEnd(t *testing.T) {
	const experiment = `, "hyperparameters": {"x": {"type": "categorical", "vals": [1, 2]}}`
	for _, c := range []struct {
		name string
		// live keeps the job in the mirror after the attempt ended: an
		// experiment whose second trial waits for the GPUs.
		live    bool
		restart bool // the master restarts between the end and the late lines
		early   bool // the lines are sent while the attempt runs too
		single  bool // the task runs on one node
	}{
		{name: "late lines of two parts, job ended", live: false},
		{name: "late lines of two parts, job live", live: true},
		{name: "late lines of two parts, job ended, after a restart", restart: true},
		{name: "late lines of two parts, job live, after a restart", live: true, restart: true},
		{name: "lines sent while running and again after the end, job ended", early: true},
		{name: "lines sent while running and again after the end, job live", live: true, early: true},
		{name: "lines sent while running and again after a restart, job ended", restart: true, early: true},
		{name: "lines sent while running and again after a restart, job live", live: true, restart: true, early: true},
		{name: "one node: lines sent while running and again after the end", early: true, single: true},
		{name: "one node: lines sent while running and again after a restart", restart: true, early: true, single: true},
		{name: "one node: late lines, job live", live: true, single: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			agents, slots := []*mastertest.Agent{h.agent("n1", 4), h.agent("n2", 4)}, 8
			if c.single {
				agents, slots = agents[:1], 4
			}
			more := ""
			if c.live {
				more = experiment
			}
			id := h.submit(fmt.Sprintf(`{"name": "big", "entrypoint": "python train.py", "resources": {"slots": %d}%s}`,
				slots, more))
			h.step()
			h.sync(agents...)
			h.sync(agents...)
			if got := h.taskState(id, 0); got != store.TaskRunning {
				t.Fatalf("task %s, want running", got)
			}
			want := map[string]int64{}
			wantPart := map[string]string{} // text: "rank node"

			post := func() {
				t.Helper()
				for _, ag := range agents {
					spec := ag.Started()[0]
					if spec.NodeCount != len(agents) {
						t.Fatalf("%s's part of %d, want one of %d", ag.Name, spec.NodeCount, len(agents))
					}
					var lines []api.AgentLogLine
					for seq := int64(1); seq <= 3; seq++ {
						text := fmt.Sprintf("%s line %d", ag.Name, seq)
						want[text] = seq*int64(spec.NodeCount) + int64(spec.NodeRank)
						wantPart[text] = "none"
						if spec.NodeCount > 1 {
							wantPart[text] = fmt.Sprint(spec.NodeRank, " ", ag.Name)
						}
						lines = append(lines, api.AgentLogLine{Task: tid(id, 0, 1), Seq: seq, Time: h.clock.Now(),
							Stream: "stdout", Text: text})
					}
					path := "/api/v1/agents/" + ag.Name + "/logs"
					if code := h.do("POST", path, api.LogBatch{Lines: lines}, nil); code != http.StatusNoContent {
						t.Fatalf("post %s: %d", path, code)
					}
				}
			}
			if c.early {
				post()
			}
			for _, ag := range agents {
				ag.Exit(tid(id, 0, 1), agent.OutcomeCompleted, 0)
			}
			h.sync(agents...)
			if got := h.taskState(id, 0); got != store.TaskCompleted {
				t.Fatalf("task %s, want completed", got)
			}
			h.m.lock()
			_, inMirror := h.m.jobs[id]
			h.m.unlock()
			if inMirror != c.live {
				t.Fatalf("job in the mirror: %v, want %v", inMirror, c.live)
			}
			if c.restart {
				h.start()
			}
			post()
			var logs api.Logs
			h.do("GET", fmt.Sprintf("/api/v1/jobs/%d/logs", id), nil, &logs)
			got := map[string]int64{}
			for _, l := range logs.Lines {
				if _, dup := got[l.Text]; dup {
					t.Errorf("%q stored twice", l.Text)
				}
				got[l.Text] = l.Seq
				part := "none"
				if l.Rank != nil {
					part = fmt.Sprint(*l.Rank, " ", l.Node)
				}
				if part != wantPart[l.Text] {
					t.Errorf("%q read back from part %q, want %q", l.Text, part, wantPart[l.Text])
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("stored lines (text: seq) %v, want %v", got, want)
			}
		})
	}
}
