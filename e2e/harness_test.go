package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/store/pgtest"
)

// Deadlines. They are long because the daemons run with the race
// detector on a machine shared with other work; a healthy run takes a
// fraction of them.
const (
	waitTimeout  = 3 * time.Minute  // one wait for a state
	cliTimeout   = 60 * time.Second // one CLI command
	startTimeout = 60 * time.Second // a daemon's start
	stopTimeout  = 45 * time.Second // a daemon's graceful stop
	pollEvery    = 100 * time.Millisecond
)

// clusterSpec describes a test cluster.
type clusterSpec struct {
	config   string // the master's configuration file (YAML)
	postgres bool   // PostgreSQL from pgtest instead of SQLite
	agents   []agentSpec
	// masterArgs are more flags for the master.
	masterArgs []string
	// dsn is a PostgreSQL database of the test's own (a server it
	// restarts), instead of pgtest's shared one.
	dsn string
	// beforeStart, when set, runs before the master starts.
	beforeStart func(c *cluster)
}

// agentSpec is one agent with fake GPUs.
type agentSpec struct {
	name, pool string
	gpus       int
	gpuType    string
}

// cluster is a running master with its agents.
type cluster struct {
	t      *testing.T
	dir    string
	marker string
	url    string
	api    *client.Client
	master *proc
	dsn    string // the master's PostgreSQL database; "" for SQLite

	// token is an admin's API token; join is the agents' join token.
	token, join string
	masterArgs  []string

	mu     sync.Mutex
	procs  []*proc
	agents map[string]*proc
}

// newCluster starts a master with spec's configuration and its agents,
// waits until every node is up, and registers the cleanup.
func newCluster(t *testing.T, spec clusterSpec) *cluster {
	t.Helper()
	dsn := spec.dsn
	if spec.postgres && dsn == "" {
		// Before the cluster's cleanup, so that the schema is dropped
		// after the master has stopped.
		dsn = pgtest.DSN(t)
	}
	c := &cluster{t: t, dir: t.TempDir(), marker: newMarker(t), dsn: dsn, agents: map[string]*proc{}, masterArgs: spec.masterArgs}
	t.Cleanup(c.cleanup)
	if err := os.WriteFile(filepath.Join(c.dir, "cluster.yaml"), []byte(spec.config), 0o644); err != nil {
		t.Fatal(err)
	}
	if spec.beforeStart != nil {
		spec.beforeStart(c)
	}
	c.master = c.startMaster("master", "127.0.0.1:0")
	c.url = "http://" + c.waitLogMatch(c.master, masterServing)
	c.waitHealthy()
	c.login(filepath.Join(c.dir, "master", "admin.token"))
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	jt, err := c.api.Identity().CreateToken(ctx, api.NewToken{Kind: api.TokenJoin, Note: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	c.join = jt.Secret
	for _, a := range spec.agents {
		c.startAgent(a)
	}
	for _, a := range spec.agents {
		c.waitNode(a.name, "up")
	}
	return c
}

// startMaster starts a master process on the cluster's configuration,
// data directory and database; a restarted master gets a new name (and
// so its own log) and the address of the one it replaces.
func (c *cluster) startMaster(name, listen string) *proc {
	c.t.Helper()
	args := []string{"master", "--listen", listen, "--data", filepath.Join(c.dir, "master"),
		"--config", filepath.Join(c.dir, "cluster.yaml")}
	if c.dsn != "" {
		args = append(args, "--db", c.dsn)
	}
	args = append(args, c.masterArgs...)
	return c.start(name, c.dir, args...)
}

// login reads the admin's token that the master (or allot dev) left in
// path and makes the cluster's API client use it.
func (c *cluster) login(path string) {
	c.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		c.t.Fatalf("the admin's token: %v", err)
	}
	c.token = strings.TrimSpace(string(data))
	api, err := client.New(c.url, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	c.api = api.WithToken(c.token)
}

func newMarker(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// start starts a daemon of the cluster, tagged with its marker, with the
// cluster's own credentials file.
func (c *cluster) start(name, dir string, args ...string) *proc {
	c.t.Helper()
	return c.startEnv(name, dir, nil, args...)
}

func (c *cluster) startEnv(name, dir string, env []string, args ...string) *proc {
	c.t.Helper()
	logPath := filepath.Join(c.dir, name+".log")
	env = append(env, markerEnv+"="+c.marker, "ALLOT_CONFIG="+filepath.Join(c.dir, "credentials.json"))
	p, err := startProc(name, dir, logPath, env, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	return p
}

// startAgent starts an agent process; a restarted agent of the same name
// uses the same work directory.
func (c *cluster) startAgent(a agentSpec) *proc {
	c.t.Helper()
	if a.gpuType == "" {
		a.gpuType = "h100"
	}
	p := c.startEnv("agent-"+a.name, c.dir, []string{"ALLOT_JOIN_TOKEN=" + c.join}, "agent", "--master", c.url, "--name", a.name, "--pool", a.pool,
		"--fake-gpus", strconv.Itoa(a.gpus), "--gpu-type", a.gpuType,
		"--work-dir", filepath.Join(c.dir, "agents", a.name), "--exit-grace", "2s")
	c.mu.Lock()
	c.agents[a.name] = p
	c.mu.Unlock()
	return p
}

// sub is the cluster seen from a subtest: its commands and waits fail
// the subtest. It cannot start or stop processes.
func (c *cluster) sub(t *testing.T) *cluster {
	return &cluster{t: t, dir: c.dir, marker: c.marker, url: c.url, api: c.api, master: c.master, token: c.token, join: c.join}
}

// as is the cluster seen by the holder of token: its CLI commands and
// API calls send that token.
func (c *cluster) as(token string) *cluster {
	v := c.sub(c.t)
	v.token = token
	api, err := client.New(c.url, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	v.api = api.WithToken(token)
	return v
}

func (c *cluster) agent(name string) *proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.agents[name]
}

var masterServing = regexp.MustCompile(`msg="master serving" addr=(\S+)`)

// waitLogMatch waits until p's log matches re and returns the first group.
func (c *cluster) waitLogMatch(p *proc, re *regexp.Regexp) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for {
		if m := re.FindStringSubmatch(p.log()); m != nil {
			return m[1]
		}
		if p.exited() {
			c.t.Fatalf("%s exited before its log matched %s:\n%s", p.name, re, tail(p.log(), 4000))
		}
		if !sleepCtx(ctx, pollEvery) {
			c.t.Fatalf("%s: no log line matched %s within %s:\n%s", p.name, re, startTimeout, tail(p.log(), 4000))
		}
	}
}

func (c *cluster) waitHealthy() {
	c.t.Helper()
	c.poll(startTimeout, "the master's /healthz to answer 200", func(ctx context.Context) (bool, string) {
		resp, err := http.Get(c.url + "/healthz")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
}

// waitNode waits until the master shows the node in state (up or lost).
func (c *cluster) waitNode(name, state string) api.Node {
	c.t.Helper()
	var node api.Node
	c.poll(waitTimeout, fmt.Sprintf("node %s to be %s", name, state), func(ctx context.Context) (bool, string) {
		nodes, err := c.api.Nodes(ctx)
		if err != nil {
			return false, err.Error()
		}
		for _, n := range nodes {
			if n.Name == name {
				node = n
				return n.State == state, "state " + n.State
			}
		}
		return false, fmt.Sprintf("not registered (nodes: %d)", len(nodes))
	})
	return node
}

// poll calls check until it reports done, failing the test at the
// deadline with check's last description of what it saw.
func (c *cluster) poll(timeout time.Duration, what string, check func(ctx context.Context) (bool, string)) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	last := ""
	for {
		reqCtx, reqCancel := context.WithTimeout(ctx, cliTimeout)
		ok, seen := check(reqCtx)
		reqCancel()
		if ok {
			return
		}
		last = seen
		if c.master != nil && c.master.exited() {
			c.t.Fatalf("waiting for %s: the master exited; last seen: %s", what, last)
		}
		if !sleepCtx(ctx, pollEvery) {
			c.t.Fatalf("waiting for %s: not within %s; last seen: %s", what, timeout, last)
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// cliResult is what one CLI command did.
type cliResult struct {
	stdout, stderr string
	code           int
}

// cli runs `allot ARGS` against the cluster's master.
func (c *cluster) cli(args ...string) cliResult {
	c.t.Helper()
	return runCLI(c.t, c.url, c.marker, c.dir, c.token, args...)
}

// runCLI runs the allot binary with ALLOT_MASTER=url, the credentials
// file of dir and, when set, ALLOT_TOKEN=token.
func runCLI(t *testing.T, url, marker, dir, token string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.allot, args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "ALLOT_MASTER="+url, markerEnv+"="+marker, "ALLOT_CONFIG="+filepath.Join(dir, "credentials.json"))
	if token != "" {
		cmd.Env = append(cmd.Env, "ALLOT_TOKEN="+token)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := cliResult{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("allot %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("allot %s: no answer within %s", strings.Join(args, " "), cliTimeout)
	}
	if strings.Contains(r.stderr, "DATA RACE") {
		t.Errorf("allot %s reported a data race:\n%s", strings.Join(args, " "), r.stderr)
	}
	return r
}

// cliOK runs a CLI command that must succeed and returns its stdout.
func (c *cluster) cliOK(args ...string) string {
	c.t.Helper()
	r := c.cli(args...)
	if r.code != 0 {
		c.t.Fatalf("allot %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// cliJSON runs a CLI command with -o json and decodes its output into v.
func (c *cluster) cliJSON(v any, args ...string) {
	c.t.Helper()
	out := c.cliOK(append(args, "-o", "json")...)
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		c.t.Fatalf("allot %s -o json: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// submit writes a job file and submits it with the CLI, returning the id.
func (c *cluster) submit(name, jobYAML string, flags ...string) int64 {
	c.t.Helper()
	dir := filepath.Join(c.dir, "jobfiles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(jobYAML), 0o644); err != nil {
		c.t.Fatal(err)
	}
	out := strings.TrimSpace(c.cliOK(append(append([]string{"submit"}, flags...), path)...))
	id, err := strconv.ParseInt(out, 10, 64)
	if err != nil {
		c.t.Fatalf("allot submit %s printed %q, want a job id", name, out)
	}
	return id
}

// show is `allot job show ID -o json`.
func (c *cluster) show(id int64) api.Job {
	c.t.Helper()
	var j api.Job
	c.cliJSON(&j, "job", "show", strconv.FormatInt(id, 10))
	return j
}

// waitJob polls the job until cond holds and returns it.
func (c *cluster) waitJob(id int64, what string, cond func(api.Job) bool) api.Job {
	c.t.Helper()
	var j api.Job
	c.poll(waitTimeout, fmt.Sprintf("job %d: %s", id, what), func(ctx context.Context) (bool, string) {
		var err error
		if j, err = c.api.Job(ctx, id); err != nil {
			return false, err.Error()
		}
		return cond(j), describeJob(j)
	})
	return j
}

// waitEnded waits until the job is completed, failed or killed.
func (c *cluster) waitEnded(id int64) api.Job {
	c.t.Helper()
	return c.waitJob(id, "to end", func(j api.Job) bool { return terminal(j.State) })
}

func terminal(state string) bool {
	return state == "completed" || state == "failed" || state == "killed"
}

// describeJob sums a job up with its attempts, for failure messages.
func describeJob(j api.Job) string {
	var b strings.Builder
	fmt.Fprintf(&b, "job %d %s (%s)", j.ID, j.State, j.Reason)
	if j.Pending != nil {
		fmt.Fprintf(&b, " pending %s: %s", j.Pending.Reason, j.Pending.Message)
	}
	for _, t := range j.TaskList {
		fmt.Fprintf(&b, "; task %d %s", t.Index, t.State)
		for _, a := range t.Attempts {
			fmt.Fprintf(&b, " [#%d %v %s %s]", a.Number, a.Placement, a.EndState, a.Reason)
		}
	}
	return b.String()
}

// logLines reads every log line of one task through the REST API, which
// carries each line's attempt.
func (c *cluster) logLines(id int64, task int) []api.LogLine {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	lines, err := c.readLogs(ctx, id, task)
	if err != nil {
		c.t.Fatalf("logs of job %d task %d: %v", id, task, err)
	}
	return lines
}

func (c *cluster) readLogs(ctx context.Context, id int64, task int) ([]api.LogLine, error) {
	var lines []api.LogLine
	lq := client.LogQuery{Task: &task}
	for {
		page, err := c.api.Logs(ctx, id, lq)
		if err != nil {
			return nil, err
		}
		lines = append(lines, page.Lines...)
		if len(page.Lines) == 0 {
			return lines, nil
		}
		lq.After = page.Next
	}
}

// waitLog waits until a line of the task's output contains want.
func (c *cluster) waitLog(id int64, task int, want string) {
	c.t.Helper()
	c.poll(waitTimeout, fmt.Sprintf("job %d task %d to print %q", id, task, want), func(ctx context.Context) (bool, string) {
		lines, err := c.readLogs(ctx, id, task)
		if err != nil {
			return false, err.Error()
		}
		for _, l := range lines {
			if strings.Contains(l.Text, want) {
				return true, ""
			}
		}
		if len(lines) == 0 {
			return false, "no output"
		}
		return false, fmt.Sprintf("%d lines, the last %q", len(lines), lines[len(lines)-1].Text)
	})
}

// cleanup stops the agents, then the master, each gracefully and
// checking for a clean exit; then kills whatever is left of the
// cluster's processes and tasks, and checks the daemons' logs for data
// races.
func (c *cluster) cleanup() {
	t := c.t
	c.mu.Lock()
	procs := append([]*proc(nil), c.procs...)
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		if p != c.master {
			wg.Go(func() { c.stopClean(p) })
		}
	}
	wg.Wait()
	if c.master != nil {
		c.stopClean(c.master)
	}
	for _, p := range procs {
		p.killGroup()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sweep(ctx, c.marker)
	if left := findProcs(markerEnv + "=" + c.marker); len(left) > 0 {
		t.Errorf("processes left after cleanup: %s", describeProcs(left))
	}
	for _, p := range procs {
		if strings.Contains(p.log(), "WARNING: DATA RACE") {
			t.Errorf("%s reported a data race:\n%s", p.name, tail(p.log(), 20000))
		}
	}
	if t.Failed() {
		for _, p := range procs {
			t.Logf("---- %s log (%s) ----\n%s", p.name, p.logPath, tail(p.log(), 6000))
		}
	}
}

// stopClean stops a daemon with SIGINT and checks that it exits 0;
// daemons the test stopped or killed on purpose are left alone.
func (c *cluster) stopClean(p *proc) {
	p.mu.Lock()
	stopped := p.stopped
	p.mu.Unlock()
	if stopped {
		return
	}
	if p.exited() {
		c.t.Errorf("%s exited before the end of the test (exit %d)", p.name, p.exitCode)
		return
	}
	code, err := p.stop(syscall.SIGINT, stopTimeout)
	switch {
	case err != nil:
		c.t.Errorf("graceful stop: %v", err)
	case code != 0:
		c.t.Errorf("%s exited %d after SIGINT, want 0", p.name, code)
	}
}
