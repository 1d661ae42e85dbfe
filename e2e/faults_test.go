package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/store/pgtest"
)

// faultConfig loses a silent agent after 4 s and gives the
// non-preemptible tasks of a lost node two minutes to come back.
const faultConfig = `
agent_timeout: 4s
lost_node_grace: 2m
pools:
  - {name: default, policy: priority, preemption: true, backfill: true, grace: 5s}
`

// A fault of the campaign: what it does to a running cluster.
type fault struct {
	name     string
	postgres bool // the cluster runs on a PostgreSQL server of its own
	sqliteFS bool // the master's data directory is a small tmpfs
	inject   func(f *faultRun)
}

// faultRun is one fault's cluster, load and database.
type faultRun struct {
	t    *testing.T
	c    *cluster
	pg   *pgtest.Server
	data string // the master's data directory
}

// TestFaultCampaign applies each fault of issue 11 to a cluster under a
// steady load of submissions while agents run jobs, then checks that no
// job was lost, no job that must run once ran twice, no run that exited
// 0 was recorded as failed, no GPU is held by a task that is not
// running, and that the usage records account for every attempt exactly.
// The summary table is logged, and written to $ALLOT_FAULT_SUMMARY when
// set (CI prints it).
func TestFaultCampaign(t *testing.T) {
	t.Parallel()
	faults := []fault{
		{name: "master kill -9", inject: func(f *faultRun) {
			f.c.master.kill9(f.t)
			time.Sleep(time.Second)
			f.c.restartMaster("master-2")
		}},
		{name: "agent kill -9", inject: func(f *faultRun) {
			f.c.agent("node-a").kill9(f.t)
			time.Sleep(2 * time.Second)
			f.c.startAgent(agentSpec{name: "node-a", pool: "default", gpus: 4})
			f.c.waitNode("node-a", "up")
		}},
		{name: "postgres restart", postgres: true, inject: func(f *faultRun) {
			if err := f.pg.Stop(); err != nil {
				f.t.Fatal(err)
			}
			if err := f.pg.Restart(); err != nil {
				f.t.Fatal(err)
			}
		}},
		{name: "postgres stopped 30s", postgres: true, inject: func(f *faultRun) {
			if err := f.pg.Stop(); err != nil {
				f.t.Fatal(err)
			}
			f.c.poll(waitTimeout, "/readyz to say the store is down", func(ctx context.Context) (bool, string) {
				code := readyz(ctx, f.c.url)
				return code == 503, fmt.Sprint(code)
			})
			time.Sleep(30 * time.Second)
			if err := f.pg.Restart(); err != nil {
				f.t.Fatal(err)
			}
		}},
		{name: "disk full under SQLite", sqliteFS: true, inject: func(f *faultRun) {
			ballast := filepath.Join(f.data, "ballast")
			fillDisk(f.t, ballast)
			f.c.poll(waitTimeout, "/readyz to say the store is down", func(ctx context.Context) (bool, string) {
				code := readyz(ctx, f.c.url)
				return code == 503, fmt.Sprint(code)
			})
			time.Sleep(5 * time.Second)
			if err := os.Remove(ballast); err != nil {
				f.t.Fatal(err)
			}
		}},
		{name: "agent SIGSTOP past its lease", inject: func(f *faultRun) {
			a := f.c.agent("node-b")
			if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				f.t.Fatal(err)
			}
			f.c.waitNode("node-b", "lost")
			time.Sleep(3 * time.Second)
			if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
				f.t.Fatal(err)
			}
			f.c.waitNode("node-b", "up")
		}},
	}
	var mu sync.Mutex
	var rows []faultSummary
	t.Cleanup(func() { writeFaultSummary(t, rows) })
	for _, ft := range faults {
		t.Run(ft.name, func(t *testing.T) {
			t.Parallel()
			row := runFault(t, ft)
			mu.Lock()
			rows = append(rows, row)
			mu.Unlock()
		})
	}
}

// runFault starts a cluster, loads it, injects the fault, and checks the
// outcome once every job has ended.
func runFault(t *testing.T, ft fault) faultSummary {
	f := &faultRun{t: t}
	spec := clusterSpec{config: faultConfig, agents: []agentSpec{
		{name: "node-a", pool: "default", gpus: 4}, {name: "node-b", pool: "default", gpus: 4}}}
	if ft.postgres {
		f.pg = pgtest.Start(t, pgtest.Options{})
		dsn, err := f.pg.NewSchema()
		if err != nil {
			t.Fatal(err)
		}
		spec.dsn = dsn
	}
	if ft.sqliteFS {
		spec.beforeStart = func(c *cluster) { mountSmallFS(t, filepath.Join(c.dir, "master")) }
	}
	f.c = newCluster(t, spec)
	f.data = filepath.Join(f.c.dir, "master")
	load := startLoad(f.c, 200*time.Millisecond)
	began := time.Now()
	load.waitAccepted(8)
	t.Logf("%s: load running after %s", ft.name, time.Since(began).Round(time.Millisecond))
	ft.inject(f)
	t.Logf("%s: fault over after %s", ft.name, time.Since(began).Round(time.Millisecond))
	load.waitAcceptedMore(8)
	load.stop()
	t.Logf("%s: load stopped after %s", ft.name, time.Since(began).Round(time.Millisecond))
	defer func() { t.Logf("%s: checked after %s", ft.name, time.Since(began).Round(time.Millisecond)) }()
	return load.check(ft.name)
}

// faultSummary is one row of the campaign's table.
type faultSummary struct {
	fault                                        string
	acked, refused, ended                        int
	lost, duplicated, exit0Failed, heldGPUs, bad int
}

func writeFaultSummary(t *testing.T, rows []faultSummary) {
	sort.Slice(rows, func(i, j int) bool { return rows[i].fault < rows[j].fault })
	var b strings.Builder
	fmt.Fprintf(&b, "%-30s %6s %8s %6s %5s %11s %13s %10s %15s\n", "FAULT", "ACKED", "REFUSED", "ENDED", "LOST",
		"DUPLICATED", "EXIT0-FAILED", "HELD-GPUS", "USAGE-MISMATCH")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-30s %6d %8d %6d %5d %11d %13d %10d %15d\n", r.fault, r.acked, r.refused, r.ended, r.lost,
			r.duplicated, r.exit0Failed, r.heldGPUs, r.bad)
	}
	t.Logf("fault campaign:\n%s", b.String())
	if path := os.Getenv("ALLOT_FAULT_SUMMARY"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Errorf("write the fault summary: %v", err)
		}
	}
}

// readyz returns the status of the master's /readyz, 0 when it does not
// answer.
func readyz(ctx context.Context, url string) int {
	req, err := http.NewRequestWithContext(ctx, "GET", url+"/readyz", nil)
	if err != nil {
		return 0
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// mountSmallFS mounts a 24 MiB tmpfs on dir, so that the test can fill
// the disk under the master's SQLite database without touching the
// machine's own.
func mountSmallFS(t *testing.T, dir string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("the disk-full fault needs to mount a small tmpfs (as root, with CAP_SYS_ADMIN): mount: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
}

// fillDisk writes path until the file system is full.
func fillDisk(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatalf("fill the disk: %v", err)
		}
	}
}

// load submits jobs at a steady rate. Every job appends "start" to its
// run file when it starts and "ok" when it ends, so that the test knows
// how often each ran and which runs exited 0; every fourth job is
// preemptible (it may run more than once), the others must run once.
type load struct {
	c     *cluster
	runs  string
	every time.Duration
	done  chan struct{}
	wg    sync.WaitGroup

	mu       sync.Mutex
	n        int
	accepted map[string]int64 // acknowledged: name → id
	refused  map[string]error // not acknowledged: may or may not exist
	mark     int              // len(accepted) when waitAcceptedMore was last called
}

func startLoad(c *cluster, every time.Duration) *load {
	l := &load{c: c, runs: filepath.Join(c.dir, "runs"), every: every, done: make(chan struct{}),
		accepted: map[string]int64{}, refused: map[string]error{}}
	if err := os.MkdirAll(l.runs, 0o755); err != nil {
		c.t.Fatal(err)
	}
	l.wg.Go(l.run)
	return l
}

func (l *load) run() {
	tick := time.NewTicker(l.every)
	defer tick.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-tick.C:
		}
		l.mu.Lock()
		i := l.n
		l.n++
		l.mu.Unlock()
		name := fmt.Sprintf("load-%d", i)
		pre := i%4 == 3
		run := filepath.Join(l.runs, name)
		spec := jobSpec{Name: name, Resources: resources{Slots: 1, Preemptible: &pre},
			Entrypoint: fmt.Sprintf("echo start >> %s; sleep %d.%d; echo ok >> %s", run, 1+i%3, (i*3)%10, run)}
		b, err := jsonOf(spec)
		if err != nil {
			l.c.t.Error(err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, err := l.c.api.Submit(ctx, b)
		cancel()
		l.mu.Lock()
		if err != nil {
			l.refused[name] = err
		} else {
			l.accepted[name] = r.ID
		}
		l.mu.Unlock()
	}
}

func (l *load) waitAccepted(n int) {
	l.c.poll(waitTimeout, fmt.Sprintf("%d submissions acknowledged", n), func(context.Context) (bool, string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.mark = len(l.accepted)
		return len(l.accepted) >= n, fmt.Sprintf("%d acknowledged, %d refused", len(l.accepted), len(l.refused))
	})
}

// waitAcceptedMore waits for n more acknowledgements than at the last
// wait: the cluster takes work again after the fault.
func (l *load) waitAcceptedMore(n int) {
	l.mu.Lock()
	want := l.mark + n
	l.mu.Unlock()
	l.waitAccepted(want)
}

func (l *load) stop() {
	close(l.done)
	l.wg.Wait()
}

// check waits for every job to end, then checks the campaign's
// invariants and returns the fault's row.
func (l *load) check(name string) faultSummary {
	c, t := l.c, l.c.t
	row := faultSummary{fault: name, acked: len(l.accepted), refused: len(l.refused)}
	var jobs []api.Job
	c.poll(waitTimeout, "every job to end", func(ctx context.Context) (bool, string) {
		var err error
		jobs, err = c.api.Jobs(ctx, client.JobFilter{})
		if err != nil {
			return false, err.Error()
		}
		live := 0
		for _, j := range jobs {
			if !terminal(j.State) {
				live++
			}
		}
		return live == 0, fmt.Sprintf("%d of %d jobs not ended", live, len(jobs))
	})
	t.Logf("%s: every job ended at %s", name, time.Now().Format("15:04:05.000"))
	byName := map[string]api.Job{}
	for _, j := range jobs {
		if _, dup := byName[j.Name]; dup {
			row.duplicated++
			t.Errorf("job %q exists twice", j.Name)
		}
		byName[j.Name] = j
		row.ended++
	}
	for name, id := range l.accepted {
		if j, ok := byName[name]; !ok || j.ID != id {
			row.lost++
			t.Errorf("acknowledged job %s (%d) is gone", name, id)
		}
	}
	for _, j := range jobs {
		if _, acked := l.accepted[j.Name]; !acked {
			if _, tried := l.refused[j.Name]; !tried {
				t.Errorf("job %d %q was never submitted", j.ID, j.Name)
			}
		}
		runs, oks := l.runCounts(j.Name)
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		full, err := c.api.Job(ctx, j.ID)
		cancel()
		if err != nil {
			t.Fatalf("job %d: %v", j.ID, err)
		}
		preemptible := full.Preemptible
		if !preemptible && runs > 1 {
			row.duplicated++
			t.Errorf("job %d %q must run once but ran %d times (%s)", j.ID, j.Name, runs, describeJob(full))
		}
		// A run that exited 0 is the last one (ok written after start),
		// and then the job must be completed.
		if oks > 0 && oks == runs && full.State != "completed" && !preemptible {
			row.exit0Failed++
			t.Errorf("job %d %q exited 0 but is recorded %s (%s)", j.ID, j.Name, full.State, describeJob(full))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	nodes, err := c.api.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Used != 0 {
			row.heldGPUs += n.Used
			t.Errorf("node %s holds %d GPUs with every job ended", n.Name, n.Used)
		}
	}
	t.Logf("%s: jobs checked at %s", name, time.Now().Format("15:04:05.000"))
	row.bad = l.checkUsage()
	return row
}

// runCounts reads a job's run file: how many runs started and how many
// wrote ok.
func (l *load) runCounts(name string) (runs, oks int) {
	data, err := os.ReadFile(filepath.Join(l.runs, name))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Fields(string(data)) {
		switch line {
		case "start":
			runs++
		case "ok":
			oks++
		}
	}
	return runs, oks
}

// checkUsage stops the master and reads its store: the usage records of
// every attempt must cover it exactly, from its start to its exit, once.
// The exit is the attempt's stored ExitedAt: when its processes exited,
// by its agent's report, which an agent killed or cut off while its task
// exited sends once back, long before the master heard of it and ended
// the attempt (EndedAt); for an attempt ended on no agent's word it is
// EndedAt. It returns the number of attempts that they do not.
func (l *load) checkUsage() int {
	c, t := l.c, l.c.t
	c.stopClean(c.master)
	c.master.setStopped()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	st, err := store.Open(ctx, c.dsn, filepath.Join(c.dir, "master"))
	if err != nil {
		t.Fatalf("open the master's store: %v", err)
	}
	defer st.Close()
	atts, err := st.Attempts(ctx, store.AttemptFilter{})
	if err != nil {
		t.Fatal(err)
	}
	usage, err := st.Usage(ctx, store.UsageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		job      int64
		index, n int
	}
	recs := map[key][]store.Usage{}
	for _, u := range usage {
		k := key{u.JobID, u.Index, u.Attempt}
		recs[k] = append(recs[k], u)
	}
	bad := 0
	for _, a := range atts {
		k := key{a.JobID, a.Index, a.Number}
		if a.Open() {
			bad++
			t.Errorf("attempt %v is still open with every job ended", k)
			continue
		}
		rs := recs[k]
		delete(recs, k)
		sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
		at, sum := a.StartedAt, 0.0
		ok := true
		for _, r := range rs {
			if !r.Start.Equal(at) {
				ok = false
			}
			at = r.End
			sum += r.GPUSeconds
		}
		want := a.ExitedAt.Sub(a.StartedAt).Seconds()
		if len(rs) > 0 && !at.Equal(a.ExitedAt) || !ok || diff(sum, want) > 1e-6 && !(len(rs) == 0 && want == 0) ||
			a.ExitedAt.Before(a.StartedAt) || a.ExitedAt.After(a.EndedAt) {
			bad++
			t.Errorf("attempt %v (%s, exited %s, ended %s): usage records %d, %.3f GPU-seconds, contiguous %v; want %.3f",
				k, a.StartedAt.Format(time.RFC3339Nano), a.ExitedAt.Format(time.RFC3339Nano),
				a.EndedAt.Format(time.RFC3339Nano), len(rs), sum, ok, want)
		}
	}
	for k, rs := range recs {
		bad++
		t.Errorf("%d usage records for attempt %v, which does not exist", len(rs), k)
	}
	return bad
}

func diff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}
