package agentd

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/allot-sched/allot/agent"
)

// Strays: task shims that an earlier agent process of this node started
// from another work directory of the same host, and left running (trial
// 2026-11-29b B13). An admin who lost or moved the agent's work directory
// and started it again with a join token takes the node over: the master
// revokes the earlier credential and ends the attempts it held as lost,
// but their processes still run on the GPUs the new agent reports free,
// until their shims' fence stops them at the end of lost_node_grace.
// Once the agent has registered as the node, no other agent holds it, so
// every shim of the node (the same name, the same master) from another
// work directory runs an attempt the master has ended: the agent stops
// it, with SIGKILL and no checkpoint grace as a disowned agent does
// (disown.go), before it syncs, so before anything new starts on those
// GPUs. Shims of other nodes (several agents may share a host: `allot
// dev` runs three) are left alone; a shim whose node cannot be told is
// named in a loud warning.

// strayWait bounds the wait for stopped shims' groups to be gone.
const strayWait = 5 * time.Second

// strayShim is a task shim found running on the host.
type strayShim struct {
	pid   int
	ticks uint64 // the leader's start time, so that a reused pid is not hit
	cmd   agent.ShimCommand
	// workDir is its agent's work directory (the fence file's), ""
	// when its command line does not say.
	workDir string
}

// strayGroup is the shims of one work directory and what to do of them.
type strayGroup struct {
	workDir string
	shims   []strayShim
	stop    bool
	// unsure says why they may be this node's but cannot be told to
	// be; "" when they are (stop) or are another node's.
	unsure string
}

// strays is the agent seen as the finder of its node's stray shims.
type strays struct {
	node, master, workDir string
	log                   *slog.Logger
}

func straysOf(a *Agent) strays {
	return strays{node: a.cfg.Name, master: a.conn.base, workDir: a.cfg.WorkDir, log: a.log}
}

// settle stops the node's stray shims and warns of those it cannot
// place; called once the agent holds the node (registered).
func (s strays) settle() {
	for _, g := range judgeStrays(findShims(), strayFacts{state: readStateOf, alive: processAlive}, s.node, s.master, s.workDir) {
		tasks, pids := g.describe()
		switch {
		case g.stop:
			left := stopShims(g.shims)
			s.log.Warn(fmt.Sprintf("stopped the task processes that an earlier agent of node %s left running from "+
				"another work directory: this agent holds the node now, so the master has ended their attempts "+
				"(a takeover revokes the earlier agent's credential), and they would run on the GPUs it hands out", s.node),
				"work_dir", g.workDir, "tasks", tasks, "pids", pids)
			if len(left) > 0 {
				s.log.Error("task processes of an earlier agent of the node are still alive after SIGKILL; "+
					"they may hold GPUs this agent hands out", "work_dir", g.workDir, "pids", left)
			}
		case g.unsure != "":
			s.log.Error(fmt.Sprintf("task processes of another agent still run on this host (work dir %s), and this agent "+
				"cannot tell whether they are node %s's: %s. If they are, their attempts have ended and they use GPUs "+
				"this agent hands out: stop them (kill -KILL -PID), or start the agent on that work directory",
				cmp.Or(g.workDir, "unknown"), s.node, g.unsure), "tasks", tasks, "pids", pids)
		}
	}
}

func (g strayGroup) describe() (tasks []string, pids []int) {
	for _, sh := range g.shims {
		tasks = append(tasks, cmp.Or(sh.cmd.Task, sh.cmd.ExitFile))
		pids = append(pids, sh.pid)
	}
	return tasks, pids
}

// strayFacts are what judgeStrays reads of the host: a work directory's
// state file, and whether a process runs.
type strayFacts struct {
	state func(dir string) (stateFile, error)
	alive func(pid int) bool
}

// judgeStrays groups the shims by work directory and says which are the
// node's (name node, master master) from a work directory other than
// own. Those it cannot place are warned of only when their agent is gone
// (a live one looks after its own), and never when they are the agent's
// own: started by it, or adopted from own (their exit file there).
func judgeStrays(shims []strayShim, f strayFacts, node, master, own string) []strayGroup {
	byDir := map[string][]strayShim{}
	var dirs []string
	for _, sh := range shims {
		if sh.cmd.AgentPID == os.Getpid() || sh.workDir != "" && sameDir(sh.workDir, own) ||
			sh.workDir == "" && within(sh.cmd.ExitFile, own) {
			continue
		}
		if _, ok := byDir[sh.workDir]; !ok {
			dirs = append(dirs, sh.workDir)
		}
		byDir[sh.workDir] = append(byDir[sh.workDir], sh)
	}
	slices.Sort(dirs)
	var out []strayGroup
	for _, dir := range dirs {
		g := strayGroup{workDir: dir, shims: byDir[dir]}
		st, err := stateFile{}, error(nil)
		if dir != "" {
			st, err = f.state(dir)
		}
		switch {
		case dir == "":
			g.unsure = "they run without a fence file, so their agent's work directory and node are unknown"
		case err != nil:
			g.unsure = fmt.Sprintf("the work directory's state file cannot be read (%v)", err)
		case st.Node == "":
			g.unsure = "the work directory's state file does not name its node (an agent older than the field)"
		case st.Node != node:
			continue // another node's agent on the same host
		case st.Master != master:
			g.unsure = fmt.Sprintf("they are node %s's of master %s, and this agent's master is %s "+
				"(another cluster, or the same one by another address)", st.Node, st.Master, master)
		default:
			g.stop = true
		}
		if !g.stop && !slices.ContainsFunc(g.shims, func(sh strayShim) bool { return sh.cmd.AgentPID == 0 || !f.alive(sh.cmd.AgentPID) }) {
			continue // every one's agent runs: not strays
		}
		out = append(out, g)
	}
	return out
}

func readStateOf(dir string) (stateFile, error) {
	return readState(filepath.Join(dir, StateFileName))
}

// within reports whether path lies under directory dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// processAlive reports whether a process of id pid runs (a zombie
// counts: its group may still hold processes).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return pid > 0 && (err == nil || errors.Is(err, syscall.EPERM))
}

// sameDir reports whether two paths name one directory.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// findShims lists the task shims running on the host (none without
// /proc).
func findShims() []strayShim {
	names, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []strayShim
	for _, e := range names {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue // it exited meanwhile, or is not ours to read
		}
		cmd, ok := agent.ParseShimCommand(strings.Split(strings.TrimRight(string(data), "\x00"), "\x00"))
		ticks, alive := startTicks(pid)
		if !ok || !alive {
			continue
		}
		sh := strayShim{pid: pid, ticks: ticks, cmd: cmd}
		if filepath.Base(cmd.FenceFile) == agent.FenceFileName {
			sh.workDir = filepath.Dir(cmd.FenceFile)
		}
		out = append(out, sh)
	}
	return out
}

// stopShims kills the shims' process groups (each shim leads its task's
// group) and waits, up to strayWait, for them to be gone; it returns the
// pids of the groups still alive.
func stopShims(shims []strayShim) (left []int) {
	var killed []int
	for _, sh := range shims {
		if t, ok := startTicks(sh.pid); !ok || t != sh.ticks {
			continue // gone, or its pid reused
		}
		if err := syscall.Kill(-sh.pid, syscall.SIGKILL); err == nil {
			killed = append(killed, sh.pid)
		}
	}
	deadline := time.Now().Add(strayWait)
	for {
		left = left[:0]
		for _, pid := range killed {
			if m, err := groupMembers(pid); err != nil || len(m) > 0 {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}
