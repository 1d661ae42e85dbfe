package agentd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/allot-sched/allot/agent"
)

// shimIn is a shim found running from work directory dir.
func shimIn(pid int, dir, task string) strayShim {
	sh := strayShim{pid: pid, ticks: 1, cmd: agent.ShimCommand{AgentPID: 1, Task: task, ExitFile: "/x/exit.json"}, workDir: dir}
	if dir != "" {
		sh.cmd.FenceFile = filepath.Join(dir, agent.FenceFileName)
	}
	return sh
}

func TestJudgeStrays(t *testing.T) {
	const node, master, own = "n3", "http://m:7070", "/w/n3new"
	states := map[string]stateFile{
		"/w/n3":     {Version: 1, Node: "n3", Master: master},
		"/w/n1":     {Version: 1, Node: "n1", Master: master},
		"/w/old":    {Version: 1},
		"/w/n3prod": {Version: 1, Node: "n3", Master: "http://prod:7070"},
	}
	state := func(dir string) (stateFile, error) {
		if st, ok := states[dir]; ok {
			return st, nil
		}
		return stateFile{}, errors.New("no such file")
	}
	// Agent 1 is gone; agent 2 runs.
	facts := strayFacts{state: state, alive: func(pid int) bool { return pid == 2 }}
	liveAgent := func(sh strayShim) strayShim { sh.cmd.AgentPID = 2; return sh }
	noFence := func(sh strayShim, exit string) strayShim { sh.cmd.ExitFile = exit; return sh }
	type verdict struct {
		dir    string
		pids   []int
		stop   bool
		unsure bool
	}
	cases := []struct {
		name  string
		shims []strayShim
		want  []verdict
	}{
		{name: "the taken-over node's shims from the old work dir are stopped",
			shims: []strayShim{shimIn(10, "/w/n3", "20/0/1"), shimIn(11, "/w/n3", "21/0/1")},
			want:  []verdict{{dir: "/w/n3", pids: []int{10, 11}, stop: true}}},
		{name: "the agent's own work dir is left to adoption",
			shims: []strayShim{shimIn(10, own, "20/0/1"), shimIn(12, own+"/", "22/0/1")}},
		{name: "another node's agent on the same host is left alone",
			shims: []strayShim{shimIn(10, "/w/n1", "20/0/1")}},
		{name: "a state file without the node is warned of",
			shims: []strayShim{shimIn(10, "/w/old", "20/0/1")},
			want:  []verdict{{dir: "/w/old", pids: []int{10}, unsure: true}}},
		{name: "the same name for another master is warned of, not stopped",
			shims: []strayShim{shimIn(10, "/w/n3prod", "20/0/1")},
			want:  []verdict{{dir: "/w/n3prod", pids: []int{10}, unsure: true}}},
		{name: "an unreadable state file is warned of",
			shims: []strayShim{shimIn(10, "/w/gone", "20/0/1")},
			want:  []verdict{{dir: "/w/gone", pids: []int{10}, unsure: true}}},
		{name: "a shim without a fence file is warned of",
			shims: []strayShim{shimIn(10, "", "")},
			want:  []verdict{{dir: "", pids: []int{10}, unsure: true}}},
		{name: "the node's shims are stopped though their agent runs (its credential was revoked)",
			shims: []strayShim{liveAgent(shimIn(10, "/w/n3", "20/0/1"))},
			want:  []verdict{{dir: "/w/n3", pids: []int{10}, stop: true}}},
		{name: "shims that cannot be placed but whose agent runs are that agent's business",
			shims: []strayShim{liveAgent(shimIn(10, "/w/old", "20/0/1")), liveAgent(shimIn(11, "", ""))}},
		{name: "a shim without a fence file whose exit file is in the own work dir was adopted",
			shims: []strayShim{noFence(shimIn(10, "", ""), own+"/jobs/20/0/.allot/exit-1-0.json")}},
		{name: "mixed, grouped by work dir in order",
			shims: []strayShim{shimIn(13, "/w/old", "1/0/1"), shimIn(10, "/w/n3", "20/0/1"), shimIn(14, "/w/n1", "2/0/1")},
			want:  []verdict{{dir: "/w/n3", pids: []int{10}, stop: true}, {dir: "/w/old", pids: []int{13}, unsure: true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []verdict
			for _, g := range judgeStrays(c.shims, facts, node, master, own) {
				_, pids := g.describe()
				got = append(got, verdict{dir: g.workDir, pids: pids, stop: g.stop, unsure: g.unsure != ""})
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("judgeStrays = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestJudgeStraysSkipsOwnProcess: a shim this process started (its
// ShimDrainArg names it) is never a stray, whatever its fence file says.
func TestJudgeStraysSkipsOwnProcess(t *testing.T) {
	sh := shimIn(10, "/w/n3", "20/0/1")
	sh.cmd.AgentPID = os.Getpid()
	facts := strayFacts{state: func(string) (stateFile, error) { return stateFile{Node: "n3", Master: "m"}, nil },
		alive: func(int) bool { return false }}
	if g := judgeStrays([]strayShim{sh}, facts, "n3", "m", "/w/other"); len(g) != 0 {
		t.Errorf("judgeStrays = %+v, want nothing", g)
	}
}

func Example_strayShimCommand() {
	c, ok := agent.ParseShimCommand([]string{"allot", agent.ShimArg, agent.ShimFenceArg, "/w/n3/fence.json", "20/0/1", "15", "/e", "sh"})
	fmt.Println(ok, filepath.Dir(c.FenceFile), c.Task)
	// Output: true /w/n3 20/0/1
}
