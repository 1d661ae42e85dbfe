package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/web/webtest"
)

// TestDashboard opens the dashboard the real master serves in headless
// Chromium: the jobs view lists submitted jobs with their states, as the
// API reports them, and the page logs no error.
func TestDashboard(t *testing.T) {
	t.Parallel()
	path, err := webtest.ChromePath()
	if err != nil {
		t.Fatalf("the dashboard test needs Chromium: %v", err)
	}
	c := newCluster(t, clusterSpec{config: onePool, agents: []agentSpec{{name: "node-1", pool: "default", gpus: 2}}})
	done := c.submit("hello", `{name: hello, entrypoint: "echo hi", resources: {slots: 1}}`)
	c.waitEnded(done)
	// Wider than the cluster: refused at submission unless asked for,
	// and then it waits, with the scheduler's reason.
	big := filepath.Join(c.dir, "too-big.yaml")
	if err := os.WriteFile(big, []byte(`{name: too-big, entrypoint: "echo never", resources: {slots: 8}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := c.cli("submit", big); r.code != 1 || !strings.Contains(r.stderr, "most that could fit is 2") {
		t.Fatalf("allot submit of a job wider than the cluster: exit %d, stderr %q; want 1 naming the 2 slots that fit", r.code, r.stderr)
	}
	waiting := c.submit("too-big", `{name: too-big, entrypoint: "echo never", resources: {slots: 8}}`, "--allow-infeasible")
	c.waitJob(waiting, "a pending reason", func(j api.Job) bool { return j.Pending != nil })

	ctx, consoleErrors := openDashboard(t, c, path, "#/jobs")
	for id, state := range map[int64]string{done: "completed", waiting: "queued"} {
		sel := fmt.Sprintf(`#jobs tr[data-job="%d"] .state`, id)
		expr := fmt.Sprintf(`(document.querySelector(%q)?.innerText || '') === %q`, sel, state)
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(100*time.Millisecond)))
		if err != nil {
			text, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body.innerText"))
			t.Fatalf("the jobs view does not show job %d as %s: %v\npage text:\n%s", id, state, err, text)
		}
	}
	row, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('#jobs tr[data-job="%d"]').innerText`, waiting)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"too-big", "default", "8"} {
		if !strings.Contains(row, want) {
			t.Errorf("row of job %d = %q, lacks %q", waiting, row, want)
		}
	}
	// Signing out hides the jobs and asks for a token again.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("signout"))); err != nil {
		t.Fatalf("sign out: %v", err)
	}
	pollJS(t, ctx, `!document.getElementById('login').hidden && !document.querySelector('#jobs tr[data-job]')`,
		"the sign-in form, with no job left on the page")
	// Chromium logs each 401 of the signed-out page as a failed resource;
	// they are the sign-in working, not a page error.
	for _, e := range consoleErrors() {
		if !strings.Contains(e, "status of 401") {
			t.Errorf("console error: %s", e)
		}
	}
}

// openDashboard opens the dashboard of cluster c at hash in headless
// Chromium (path) and signs the admin in; it returns the tab's context
// and what reads the console errors logged so far.
func openDashboard(t *testing.T, c *cluster, path, hash string) (context.Context, func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	var mu sync.Mutex
	var consoleErrors []string
	go func() {
		for m, err := range chromedp.Console(tab) {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				mu.Lock()
				consoleErrors = append(consoleErrors, m.Text)
				mu.Unlock()
			}
		}
	}()
	ctx, cancel := context.WithTimeout(tab, waitTimeout)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(c.url+"/?refresh=0.5"+hash)); err != nil {
		t.Fatalf("open the dashboard: %v", err)
	}
	// The master asks who is there; the admin signs in with its token.
	pollJS(t, ctx, `!document.getElementById('login').hidden`, "the sign-in form")
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("login-token"), c.token),
		chromedp.Click(chromedp.CSS("#login-form button"))); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	pollJS(t, ctx, `document.getElementById('who-name').innerText === 'admin (admin)'`, "the signed-in user in the header")
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(consoleErrors)
	}
}

// TestDashboardRequeue: on the real master, the job page's Requeue asks,
// then stops the running job as a preemption does; the job waits again
// and runs a second attempt, which the page shows, with no page error.
func TestDashboardRequeue(t *testing.T) {
	t.Parallel()
	path, err := webtest.ChromePath()
	if err != nil {
		t.Fatalf("the dashboard test needs Chromium: %v", err)
	}
	c := newCluster(t, clusterSpec{config: onePool, agents: []agentSpec{{name: "node-1", pool: "default", gpus: 2}}})
	id := c.submit("long", `{name: long, entrypoint: "sleep 600", resources: {slots: 1}}`)
	c.waitJob(id, "running", func(j api.Job) bool { return j.State == "running" })
	ctx, consoleErrors := openDashboard(t, c, path, fmt.Sprintf("#/jobs/%d", id))
	pollJS(t, ctx, `!document.getElementById('requeue').hidden`, "the Requeue button")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("requeue"))); err != nil {
		t.Fatal(err)
	}
	pollJS(t, ctx, fmt.Sprintf(`document.getElementById('confirm').open && document.getElementById('confirm-text').innerText.startsWith('Requeue job %d (long)?')`, id),
		"the confirmation")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("confirm-ok"))); err != nil {
		t.Fatal(err)
	}
	pollJS(t, ctx, fmt.Sprintf(`document.getElementById('action-msg').innerText === 'Job %d is requeued: 1 task checkpoints and stops, then it waits again.'`, id),
		"the requeue's message")
	j := c.waitJob(id, "a second attempt running", func(j api.Job) bool {
		return j.State == "running" && len(j.TaskList) == 1 && len(j.TaskList[0].Attempts) == 2
	})
	if a := j.TaskList[0].Attempts[0]; a.EndState != "preempted" {
		t.Errorf("attempt 1 ended %q, want preempted (requeued)", a.EndState)
	}
	pollJS(t, ctx, `document.getElementById('tasks').innerText.includes('requeued by admin')`, "the requeue on the job page")
	for _, e := range consoleErrors() {
		if !strings.Contains(e, "status of 401") { // before the sign-in
			t.Errorf("console error: %s", e)
		}
	}
}

// pollJS waits until the JavaScript expression is true on the page.
func pollJS(t *testing.T, ctx context.Context, expr, what string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body.innerText"))
		t.Fatalf("waiting for %s: %v\npage text:\n%s", what, err, text)
	}
}
