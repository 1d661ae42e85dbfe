package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

var devBanner = regexp.MustCompile(`dashboard  (http://\S+)/\n`)

// startDev runs `allot dev` on data and waits for its banner and for its
// two nodes to be up. The returned cluster's master is the dev process.
func startDev(t *testing.T, data string) *cluster {
	t.Helper()
	c := &cluster{t: t, dir: t.TempDir(), marker: newMarker(t), agents: map[string]*proc{}}
	t.Cleanup(c.cleanup)
	c.master = c.start("dev", c.dir, "dev", "--listen", "127.0.0.1:0", "--data", data)
	c.url = c.waitLogMatch(c.master, devBanner)
	c.login(filepath.Join(data, "admin.token"))
	// The CLI must find its credentials where allot dev saved them.
	c.token = ""
	for _, n := range []string{"dev-1", "dev-2", "dev-3"} {
		c.waitNode(n, "up")
	}
	return c
}

// TestDev runs `allot dev` as a user would: a job submitted with the CLI
// runs, the dashboard is served, and Ctrl-C stops everything cleanly,
// checkpointing the running task, which resumes in the next `allot dev`
// on the same data directory.
func TestDev(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "dev-data")
	c := startDev(t, data)
	checkDashboardServed(t, c.url)

	hello := strings.TrimSpace(c.cliOK("submit", filepath.Join(bins.repo, "examples", "jobs", "hello.yaml")))
	id, err := strconv.ParseInt(hello, 10, 64)
	if err != nil {
		t.Fatalf("allot submit printed %q", hello)
	}
	if j := c.waitEnded(id); j.State != "completed" {
		t.Fatalf("hello: %s", describeJob(c.show(id)))
	}
	if out := c.cliOK("job", "logs", hello); out != "hi\n" {
		t.Errorf("allot job logs %s = %q, want \"hi\\n\"", hello, out)
	}

	train := c.submit("train", fmt.Sprintf(`name: train
kind: experiment
resources: {slots: 1, priority_class: LOW}
entrypoint: 'exec %s -steps 100000 -step-time 20ms'
`, bins.train))
	c.waitLog(train, 0, "step 5")

	if code := c.master.interrupt(t); code != 0 {
		t.Fatalf("allot dev exited %d after SIGINT, want 0:\n%s", code, tail(c.master.log(), 4000))
	}
	if left := findProcs(markerEnv + "=" + c.marker); len(left) > 0 {
		t.Fatalf("processes left after allot dev stopped: %s", describeProcs(left))
	}
	ckpt := filepath.Join(data, "checkpoints", strconv.FormatInt(train, 10), "0")
	step := checkpointStep(t, ckpt)
	if step < 5 {
		t.Fatalf("the checkpoint at shutdown holds step %d, want >= 5", step)
	}

	// The next allot dev on the data directory resumes the trial from its
	// checkpoint.
	c = startDev(t, data)
	j := c.waitJob(train, "to run its second attempt", func(j api.Job) bool {
		return len(j.TaskList) == 1 && len(j.TaskList[0].Attempts) == 2 && j.TaskList[0].State == "running"
	})
	if a := j.TaskList[0].Attempts[0]; a.EndState != "preempted" {
		t.Errorf("the attempt stopped with allot dev ended %q, want preempted", a.EndState)
	}
	c.waitLog(train, 0, fmt.Sprintf("start step=%d restart=1", step))
	if code := c.master.interrupt(t); code != 0 {
		t.Fatalf("the second allot dev exited %d after SIGINT, want 0", code)
	}
	if left := findProcs(markerEnv + "=" + c.marker); len(left) > 0 {
		t.Fatalf("processes left after the second allot dev stopped: %s", describeProcs(left))
	}
}

// checkDashboardServed fetches the dashboard's page.
func checkDashboardServed(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(body), "<html") {
		t.Errorf("GET / = %s %s:\n%s", resp.Status, resp.Header.Get("Content-Type"), tail(string(body), 500))
	}
}
