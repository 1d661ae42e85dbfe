package e2e

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
)

// crashPool gives the agents a minute to come back: a restarted master
// waits one agent timeout for each node to register again, and the
// agents' back-off grows while the master is down. Its minimum run time
// keeps the scheduler from preempting or moving (consolidating) running
// tasks, so that every task can be checked to finish on its first attempt.
const crashPool = `
agent_timeout: 60s
pools:
  - {name: default, policy: priority, preemption: true, backfill: true, grace: 10s, min_run_time: 1h}
`

// floodTrials is the size of the experiments submitted while the master
// is killed: big enough that a submission takes a while to commit.
const floodTrials = 200

// TestMasterCrash kills -9 the master of two agents that run a command,
// an examples/train experiment and some trials of another experiment,
// with a job and trials queued behind them and submissions in flight;
// then starts a master on the same data directory or database, kills it
// again as soon as it serves (a crash during recovery), and starts a
// third. The third finds every job as it was, with no half-created job,
// takes the running attempts back from the agents without restarting
// them, and everything then runs to completion with all its output.
func TestMasterCrash(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t, clusterSpec{config: crashPool, postgres: backend == "postgres", agents: []agentSpec{
				{name: "node-a", pool: "default", gpus: 4}, {name: "node-b", pool: "default", gpus: 4}}})
			testMasterCrash(t, c)
		})
	}
}

func testMasterCrash(t *testing.T, c *cluster) {
	w := startCrashWorkload(c)
	before := map[int64]api.Job{}
	leaders := map[string]int{}
	for _, id := range w.ids() {
		before[id] = c.show(id)
		for _, task := range before[id].TaskList {
			if task.State == "running" {
				k := taskKey(id, task.Index)
				if leaders[k] = attemptLeader(c, id, task.Index, task.Attempts[0].Number); leaders[k] == 0 {
					t.Fatalf("job %d task %d runs, but no process of its attempt was found", id, task.Index)
				}
			}
		}
	}
	lastStep := lastTrainStep(c.logLines(w.train, 0))

	f := startFlood(c, 2)
	f.waitAccepted(c, 3)
	crashed := time.Now()
	c.master.kill9(t)
	f.stop()

	c.restartMaster("master-2")
	c.master.kill9(t)
	c.restartMaster("master-3")
	c.waitRegistered(runningOn(before))
	c.waitLog(w.train, 0, fmt.Sprintf("step %d", lastStep+40))

	for id, b := range before {
		a := c.show(id)
		checkSameJob(t, b, a)
		for _, task := range a.TaskList {
			k := taskKey(id, task.Index)
			if leaders[k] == 0 {
				continue
			}
			if got := attemptLeader(c, id, task.Index, 1); got != leaders[k] {
				t.Errorf("job %d task %d: its attempt's process group leader is %d after the restarts, was %d", id, task.Index, got, leaders[k])
			}
		}
	}
	flooded := f.check(c, before)

	for _, id := range flooded {
		c.cliOK("job", "kill", strconv.FormatInt(id, 10))
	}
	for _, id := range flooded {
		if j := c.waitEnded(id); j.State != "killed" {
			t.Errorf("flood job %d ended %s after allot job kill", id, j.State)
		}
	}
	w.releaseAll(c)
	for _, id := range w.ids() {
		c.waitEnded(id)
	}
	w.checkEnd(c, before, crashed, lastStep)
}

// crashWorkload is what runs when the master is killed, on 8 GPUs: a
// 2-GPU command and a 2-GPU examples/train experiment, 4 of 6 one-GPU
// trials, and a 4-GPU command queued behind them.
type crashWorkload struct {
	hold, train, trials, big int64
}

func (w crashWorkload) ids() []int64 { return []int64{w.hold, w.train, w.trials, w.big} }

// trainHeld runs examples/train until the test releases the task, then
// has it checkpoint and exit 0.
func trainHeld() string {
	return `echo "ckpt=$ALLOT_CHECKPOINT_DIR restart=$ALLOT_RESTART_COUNT attempt=$ALLOT_ATTEMPT"
if [ -f "$E2E_RELEASE/$ALLOT_JOB_ID-$ALLOT_TASK_INDEX" ]; then exit 0; fi
` + bins.train + ` -steps 1000000 -step-time 50ms &
while [ ! -f "$E2E_RELEASE/$ALLOT_JOB_ID-$ALLOT_TASK_INDEX" ]; do sleep 0.2; done
kill -TERM $!
wait $!`
}

func startCrashWorkload(c *cluster) crashWorkload {
	var w crashWorkload
	w.hold = c.submit("hold", c.holdJob("hold", 2).file(c.t))
	train := c.holdJob("train", 2)
	train.Kind, train.Entrypoint = "experiment", trainHeld()
	w.train = c.submit("train", train.file(c.t))
	trials := c.holdJob("trials", 1)
	trials.trials(6, 0)
	w.trials = c.submit("trials", trials.file(c.t))
	w.big = c.submit("big", c.holdJob("big", 4).file(c.t))

	c.waitLog(w.hold, 0, "task 0 attempt 1")
	c.waitLog(w.train, 0, "step 5")
	c.waitJob(w.trials, "4 trials running, 2 queued", func(j api.Job) bool {
		return countTasks(j, "running") == 4 && countTasks(j, "queued") == 2
	})
	for i := range 6 {
		if j := c.show(w.trials); j.TaskList[i].State == "running" {
			c.waitLog(w.trials, i, fmt.Sprintf("task %d attempt 1", i))
		}
	}
	if j := c.show(w.big); j.State != "queued" || countTasks(j, "queued") != 1 {
		c.t.Fatalf("the 4-GPU job should wait for GPUs: %s", describeJob(j))
	}
	return w
}

func countTasks(j api.Job, state string) int {
	n := 0
	for _, t := range j.TaskList {
		if t.State == state {
			n++
		}
	}
	return n
}

func taskKey(id int64, task int) string { return fmt.Sprintf("%d/%d", id, task) }

// attemptLeader is the process id of the shell that runs one attempt of a
// task: the leader of the attempt's process group. 0 when none runs.
func attemptLeader(c *cluster, id int64, task, attempt int) int {
	for _, pid := range taskProcs(c, id, task, attempt) {
		if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
			return pid
		}
	}
	return 0
}

// runningOn counts the open attempts on each node.
func runningOn(jobs map[int64]api.Job) map[string]int {
	out := map[string]int{}
	for _, j := range jobs {
		for _, t := range j.TaskList {
			if n := len(t.Attempts); n > 0 && t.Attempts[n-1].EndState == "" {
				for _, p := range t.Attempts[n-1].Placement {
					out[p.Node]++
				}
			}
		}
	}
	return out
}

func lastTrainStep(lines []api.LogLine) int {
	last := 0
	for _, l := range lines {
		if m := stepLine.FindStringSubmatch(l.Text); m != nil {
			last, _ = strconv.Atoi(m[1])
		}
	}
	return last
}

// restartMaster starts a master on the address, data directory and
// database of the one the test killed, and waits until it serves.
func (c *cluster) restartMaster(name string) {
	c.t.Helper()
	if !c.master.exited() {
		c.t.Fatalf("restartMaster: %s still runs", c.master.name)
	}
	c.master = c.startMaster(name, strings.TrimPrefix(c.url, "http://"))
	c.waitLogMatch(c.master, masterServing)
	c.waitHealthy()
}

var agentRegistered = regexp.MustCompile(`msg="agent registered" node=(\S+) pool=\S+ gpus=\d+ running=(\d+) unsettled=(\d+)`)

// waitRegistered waits until every node of running has registered with
// the current master, and checks that each listed the attempts the
// master expected there, so that none is left to be settled as lost.
func (c *cluster) waitRegistered(running map[string]int) {
	c.t.Helper()
	seen := map[string][]string{}
	c.poll(waitTimeout, fmt.Sprintf("nodes %v to register with %s", running, c.master.name), func(context.Context) (bool, string) {
		for _, m := range agentRegistered.FindAllStringSubmatch(c.master.log(), -1) {
			if _, ok := seen[m[1]]; !ok {
				seen[m[1]] = m
			}
		}
		return len(seen) >= len(running), fmt.Sprintf("registered: %d", len(seen))
	})
	for node, want := range running {
		m := seen[node]
		if m == nil || m[2] != strconv.Itoa(want) || m[3] != "0" {
			c.t.Errorf("%s registered as %q; want running=%d unsettled=0", node, m, want)
		}
	}
}

// checkSameJob checks that a job came through the restarts unchanged:
// the same tasks in the same states, with the same attempts on the same
// GPUs, none ended and none added.
func checkSameJob(t *testing.T, before, after api.Job) {
	t.Helper()
	if after.ID != before.ID || after.Name != before.Name || after.State != before.State || after.Tasks != before.Tasks ||
		len(after.TaskList) != len(before.TaskList) {
		t.Errorf("job %d changed in the restarts:\nbefore %s\nafter  %s", before.ID, describeJob(before), describeJob(after))
		return
	}
	for i, b := range before.TaskList {
		a := after.TaskList[i]
		if !reflect.DeepEqual(a, b) {
			t.Errorf("job %d task %d changed in the restarts:\nbefore %+v\nafter  %+v", before.ID, i, b, a)
		}
	}
}

// flood submits experiments from several goroutines until it is
// stopped or a submission fails, so that one may be in flight when the
// master dies.
type flood struct {
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	// accepted maps the name of each job the master acknowledged to its
	// id; lost holds the name of each submission that got no answer.
	accepted map[string]int64
	lost     map[string]error
}

func startFlood(c *cluster, workers int) *flood {
	f := &flood{done: make(chan struct{}), accepted: map[string]int64{}, lost: map[string]error{}}
	for w := range workers {
		f.wg.Go(func() { f.submit(c.api, w) })
	}
	return f
}

func (f *flood) submit(api *client.Client, worker int) {
	for n := 0; ; n++ {
		select {
		case <-f.done:
			return
		default:
		}
		spec := jobSpec{Name: fmt.Sprintf("flood-%d-%d", worker, n), Entrypoint: "echo flood",
			Resources: resources{Slots: 1, PriorityClass: "LOW"}}
		spec.trials(floodTrials, 0)
		b, err := jsonOf(spec)
		if err != nil {
			f.record(spec.Name, 0, err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		r, err := api.Submit(ctx, b)
		cancel()
		if err == nil && r.Tasks != floodTrials {
			err = fmt.Errorf("the master made %d tasks, want %d", r.Tasks, floodTrials)
		}
		f.record(spec.Name, r.ID, err)
		if err != nil {
			return
		}
	}
}

func (f *flood) record(name string, id int64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.lost[name] = err
	} else {
		f.accepted[name] = id
	}
}

// waitAccepted waits until the master has acknowledged n submissions,
// none having failed.
func (f *flood) waitAccepted(c *cluster, n int) {
	c.t.Helper()
	c.poll(waitTimeout, fmt.Sprintf("%d flood submissions", n), func(context.Context) (bool, string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.lost) > 0 {
			c.t.Fatalf("a submission failed while the master was up: %v", f.lost)
		}
		return len(f.accepted) >= n, fmt.Sprintf("%d accepted", len(f.accepted))
	})
}

func (f *flood) stop() {
	close(f.done)
	f.wg.Wait()
}

// check lists every job of the restarted master: besides the workload's,
// only flood jobs, each either acknowledged or the submission in flight
// at the crash, and each with all its tasks, queued. It returns their ids.
func (f *flood) check(c *cluster, workload map[int64]api.Job) []int64 {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	jobs, err := c.api.Jobs(ctx, client.JobFilter{})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Logf("flood: %d submissions acknowledged, %d unanswered (%v); %d jobs listed", len(f.accepted), len(f.lost), f.lost, len(jobs))
	seen := map[int64]bool{}
	names := map[string]int64{}
	var ids []int64
	for _, j := range jobs {
		if seen[j.ID] {
			c.t.Errorf("job %d listed twice", j.ID)
		}
		seen[j.ID] = true
		if _, ok := workload[j.ID]; ok {
			continue
		}
		_, acked := f.accepted[j.Name]
		_, inFlight := f.lost[j.Name]
		if !acked && !inFlight {
			c.t.Errorf("job %d %q was never submitted", j.ID, j.Name)
			continue
		}
		if acked && f.accepted[j.Name] != j.ID {
			c.t.Errorf("job %q has id %d, but its submission was answered %d", j.Name, j.ID, f.accepted[j.Name])
		}
		if other, dup := names[j.Name]; dup {
			c.t.Errorf("job %q exists twice: %d and %d", j.Name, other, j.ID)
		}
		names[j.Name] = j.ID
		full := c.show(j.ID)
		if full.State != "queued" || full.Tasks != floodTrials || len(full.TaskList) != floodTrials ||
			countTasks(full, "queued") != floodTrials {
			c.t.Errorf("flood job %d %q is not whole and queued: %s, %d tasks, %d listed, %d queued",
				j.ID, j.Name, full.State, full.Tasks, len(full.TaskList), countTasks(full, "queued"))
		}
		ids = append(ids, j.ID)
	}
	for id := range workload {
		if !seen[id] {
			c.t.Errorf("job %d is gone after the restarts", id)
		}
	}
	for name, id := range f.accepted {
		if names[name] != id {
			c.t.Errorf("acknowledged job %d %q is gone after the restarts", id, name)
		}
	}
	return ids
}

// releaseAll lets every task of the workload finish.
func (w crashWorkload) releaseAll(c *cluster) {
	c.release(w.hold, 0)
	c.release(w.train, 0)
	c.release(w.big, 0)
	for i := range 6 {
		c.release(w.trials, i)
	}
}

// checkEnd checks the workload's end: every task completed on its one
// attempt, on the GPUs it had before the crash if it ran then, with all
// its output.
func (w crashWorkload) checkEnd(c *cluster, before map[int64]api.Job, crashed time.Time, lastStep int) {
	t := c.t
	for _, id := range w.ids() {
		j := c.show(id)
		if j.State != "completed" {
			t.Errorf("job %d %s, want completed: %s", id, j.State, describeJob(j))
			continue
		}
		for i, task := range j.TaskList {
			if task.State != "completed" || len(task.Attempts) != 1 || task.Attempts[0].Number != 1 ||
				task.Attempts[0].EndState != "completed" {
				t.Errorf("job %d task %d: want completed on its one attempt: %s", id, i, describeJob(j))
				continue
			}
			a, b := task.Attempts[0], before[id].TaskList[i]
			if b.State == "running" && !reflect.DeepEqual(a.Placement, b.Attempts[0].Placement) {
				t.Errorf("job %d task %d ended on %v, started on %v", id, i, a.Placement, b.Attempts[0].Placement)
			}
			if b.State == "queued" && !a.StartedAt.After(crashed) {
				t.Errorf("job %d task %d was queued at the crash but started at %v, before it (%v)", id, i, a.StartedAt, crashed)
			}
			if id != w.train {
				c.checkHeld(id, i, 1, 0, "released")
			}
		}
	}
	train := c.show(w.train).TaskList[0]
	if end := checkTrainAttempt(t, c.logLines(w.train, 0), 1, train.CheckpointDir, 0, 0); end <= lastStep+40 {
		t.Errorf("examples/train stopped at step %d, but it printed step %d after the restarts", end, lastStep+40)
	}
}
