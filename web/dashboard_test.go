package web

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/allot-sched/allot/api"
)

const wide, narrow = 1280, 375

// rowIDs reads the data-* attribute of the rows matching sel, in order.
func rowIDs(p *page, sel, attr string) []string {
	p.t.Helper()
	return evalJS[[]string](p, fmt.Sprintf("[...document.querySelectorAll(%q)].map(e => e.dataset.%s)", sel, attr))
}

func TestJobsShowsQueueInSchedulingOrderWithReasons(t *testing.T) {
	f := newFixture()
	p := openPage(t, f, "#/jobs", wide)
	p.waitFor(`document.querySelectorAll('#jobs tbody tr[data-job]').length === 7`, "seven job rows")

	if got, want := rowIDs(p, "#jobs tbody tr", "job"), []string{"1", "2", "3", "4", "5", "7", "6"}; !slices.Equal(got, want) {
		t.Errorf("job rows = %v, want the live jobs in the API's scheduling order, then the ended ones %v", got, want)
	}
	row4 := p.waitText(`#jobs tr[data-job="4"]`, "would_delay")
	for _, want := range []string{"notebook-alice", "fits now but would delay the reservation of job 3", "blocked by job 3", "queued"} {
		if !strings.Contains(row4, want) {
			t.Errorf("row of job 4 = %q, want it to contain %q", row4, want)
		}
	}
	if href := evalJS[string](p, `document.querySelector('#jobs tr[data-job="4"] td.why a').getAttribute('href')`); href != "#/jobs/3" {
		t.Errorf("blocker link of job 4 = %q, want #/jobs/3", href)
	}
	if rng := evalJS[string](p, `document.querySelector('#jobs tr[data-job="5"] td .estimate').innerText`); !strings.Contains(rng, " to ") || !strings.Contains(rng, "(forecast)") {
		t.Errorf("job 5's estimate = %q, want a forecast's range", rng)
	}
	est := evalJS[[]string](p, `(() => { const e = document.querySelector('#jobs tr[data-job="3"] td:last-child time'); return [e.getAttribute('datetime'), e.innerText]; })()`)
	if want := at(40 * time.Minute).Format(time.RFC3339); est[0] != want || !strings.HasPrefix(est[1], "in ") {
		t.Errorf("estimated start of job 3 = %q, want datetime %s shown as \"in …\"", est, want)
	}

	t.Run("filter by state", func(t *testing.T) {
		p := p.sub(t)
		p.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('f-state'); s.value = 'queued'; s.dispatchEvent(new Event('change')); })()`))
		p.waitFor(`document.querySelectorAll('#jobs tbody tr[data-job]').length === 4`, "four queued rows")
		if got, want := rowIDs(p, "#jobs tbody tr", "job"), []string{"3", "4", "5", "7"}; !slices.Equal(got, want) {
			t.Errorf("queued rows = %v, want %v", got, want)
		}
		positions := evalJS[[]string](p, `[...document.querySelectorAll('#jobs tbody tr td:first-child')].map(td => td.innerText)`)
		if want := []string{"1", "2", "3", "1"}; !slices.Equal(positions, want) {
			t.Errorf("positions = %v, want %v", positions, want)
		}
		if h := evalJS[string](p, "location.hash"); h != "#/jobs?state=queued" {
			t.Errorf("hash = %q, want the filter in the URL", h)
		}
		if len(f.seen("GET /jobs?state=queued")) == 0 {
			t.Errorf("no GET /jobs?state=queued among %v", f.seen("GET /jobs"))
		}
	})
	t.Run("filter from the URL", func(t *testing.T) {
		p := p.sub(t)
		p.goTo("#/jobs?pool=t4")
		p.waitFor(`document.querySelectorAll('#jobs tbody tr[data-job]').length === 1`, "one t4 row")
		if got := rowIDs(p, "#jobs tbody tr", "job"); !slices.Equal(got, []string{"7"}) {
			t.Errorf("rows for pool t4 = %v, want [7]", got)
		}
		if v := evalJS[string](p, `document.getElementById('f-pool').value`); v != "t4" {
			t.Errorf("pool filter shows %q, want t4", v)
		}
	})
}

func TestOverviewShowsPoolsAndGPUsByJob(t *testing.T) {
	f := newFixture()
	p := openPage(t, f, "#/", wide)
	card := p.waitText(`#ov-pools [data-pool="a100"]`, "12 / 16 slots used")
	for _, want := range []string{"priority · preemption · backfill", "Running tasks", "3", "Next in the queue", "llama-pretrain"} {
		if !strings.Contains(card, want) {
			t.Errorf("a100 card = %q, want %q in it", card, want)
		}
	}
	if first := evalJS[string](p, `document.querySelector('[data-pool="a100"] .queue-head li').dataset.job`); first != "3" {
		t.Errorf("queue head of a100 starts with job %s, want 3", first)
	}
	// A reserved job's message counts down to its start already: the
	// queue adds the date and time only, not the countdown again.
	head := evalJS[string](p, `document.querySelector('[data-pool="a100"] .queue-head li').innerText`)
	if !strings.Contains(head, "reserved to start when job 2 ends (at ") || strings.Contains(head, "(start in") {
		t.Errorf("queue head %q, want the reservation's message and its time only", head)
	}
	p.waitFor(`document.querySelectorAll('#ov-nodes .gpu.held').length === 12`, "twelve held GPU cells")
	cells := evalJS[[]string](p, `[...document.querySelectorAll('[data-node="gpu-a1"] .gpu, [data-node="gpu-a2"] .gpu')].map(c => c.innerText.replace(/\s+/g, ' ').trim())`)
	want := []string{"0 #1", "1 #1", "2 #1", "3 #1", "4 #1", "5 #1", "6 #1", "7 #1",
		"0 #2", "1 #2", "2 #2", "3 #2", "4 free", "5 free", "6 free", "7 free"}
	if !slices.Equal(cells, want) {
		t.Errorf("GPU cells = %q\nwant %q (job 1's preempted attempt on gpu-a2 holds nothing)", cells, want)
	}
	lost := p.waitText(`[data-node="t4-1"]`, "lost")
	if !strings.Contains(lost, "free") {
		t.Errorf("lost node = %q, want its GPUs shown free", lost)
	}
	legend := p.waitText(".legend", "#2 bert-finetune")
	if !strings.Contains(legend, "#1 resnet-sweep") {
		t.Errorf("legend = %q, want both running jobs", legend)
	}
}

func TestLogsFollowNewLines(t *testing.T) {
	f := newFixture()
	p := openPage(t, f, "#/jobs/1", wide)
	out := p.waitText("#log", "epoch 2 loss 0.71")
	if !strings.Contains(out, "err warning: learning rate warmup") {
		t.Errorf("log = %q, want the stderr line marked err", out)
	}
	p.do(chromedp.Click(chromedp.ID("log-follow")))
	p.waitText("#log-status", "Following")
	f.addLog(1, 0, "stdout", "epoch 3 loss 0.52")
	p.waitText("#log", "epoch 3 loss 0.52")
	f.addLog(1, 0, "stdout", "epoch 4 loss 0.40")
	out = p.waitText("#log", "epoch 4 loss 0.40")
	if strings.Count(out, "epoch 2 loss") != 1 {
		t.Errorf("log shows old lines again after follow:\n%s", out)
	}
	if polls := f.seen("GET /jobs/1/logs?task=0&after=3&wait=20"); len(polls) == 0 {
		t.Errorf("no long poll after the cursor; log requests: %v", f.seen("GET /jobs/1/logs"))
	}
}

func TestKillAsksThenPosts(t *testing.T) {
	cases := []struct {
		name, button string
		posts        int
		state        string
	}{
		{"cancel", "#confirm-cancel", 0, "running"},
		{"confirm", "#confirm-ok", 1, "killed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			p := openPage(t, f, "#/jobs/2", wide)
			p.waitText("h1", "bert-finetune")
			p.do(chromedp.Click(chromedp.ID("kill")))
			p.waitText("#confirm", "Kill job 2 (bert-finetune)?")
			p.do(chromedp.Click(chromedp.CSS(c.button)))
			p.waitFor(`!document.getElementById('confirm').open`, "the dialog to close")
			if c.posts > 0 {
				p.waitText("#action-msg", "Job 2 is being killed.")
			}
			p.waitText("h1", c.state)
			if got := f.seen("POST /jobs/2/kill"); len(got) != c.posts {
				t.Errorf("kill requests = %v, want %d", got, c.posts)
			}
			if disabled := evalJS[bool](p, `document.getElementById('kill').disabled`); disabled != (c.posts > 0) {
				t.Errorf("kill button disabled = %v after %s", disabled, c.name)
			}
		})
	}
}

func TestPriorityChangeShowsResultOrAPIError(t *testing.T) {
	cases := []struct {
		name, value, body, msg string
	}{
		{"accepted", "7", `{"priority":7}`, "Priority of job 5 is now 7."},
		{"refused", "1", `{"priority":1}`, "priority 1 is reserved for administrators (field priority)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			p := openPage(t, f, "#/jobs/5", wide)
			p.expect("status of 403") // the refusal the test provokes
			p.waitFor(`document.getElementById('priority').value === '42'`, "the current priority in the input")
			// Empty the input as a user selecting its text would, then type.
			p.do(chromedp.Evaluate[chromedp.Void](`(e => { e.focus(); e.value = ''; e.dispatchEvent(new Event('input')); })(document.getElementById('priority'))`),
				chromedp.SendKeys(chromedp.ID("priority"), c.value),
				chromedp.Click(chromedp.ID("set-priority")))
			p.waitText("#confirm", "to "+c.value+"?")
			p.do(chromedp.Click(chromedp.ID("confirm-ok")))
			p.waitText("#action-msg", c.msg)
			if got := f.seen("PATCH /jobs/5"); len(got) != 1 || got[0] != "PATCH /jobs/5 "+c.body {
				t.Errorf("PATCH requests = %q, want one with %s", got, c.body)
			}
			if c.name == "refused" {
				if role := evalJS[string](p, `document.getElementById('action-msg').getAttribute('role')`); role != "alert" {
					t.Errorf("error message role = %q, want alert", role)
				}
			}
		})
	}
}

func TestBannerWhenMasterUnreachable(t *testing.T) {
	f := newFixture()
	p := openPage(t, f, "#/jobs", wide)
	p.expect("status of 503")
	p.waitFor(`document.querySelectorAll('#jobs tbody tr[data-job]').length === 7`, "the jobs")
	p.waitText("#updated", "Updated")
	if hidden := evalJS[bool](p, `document.getElementById('banner').hidden`); !hidden {
		t.Fatalf("banner shown while the master answers")
	}

	f.setDown(true)
	banner := p.waitText("#banner", "Cannot reach the Allot master")
	if !strings.Contains(banner, "the store is unavailable") || !strings.Contains(banner, "Retrying every 0.2 s") {
		t.Errorf("banner = %q, want the API's message and the retry period", banner)
	}
	p.waitText("#updated", "Master unreachable; last update")
	if n := evalJS[int](p, `document.querySelectorAll('#jobs tbody tr[data-job]').length`); n != 7 {
		t.Errorf("%d job rows while unreachable, want the last data (7 rows) kept", n)
	}

	f.setDown(false)
	p.waitFor(`document.getElementById('banner').hidden`, "the banner to go")
	p.waitText("#updated", "Updated")
}

// TestStoreBanner: while the master's store refuses writes the page says
// so, keeps what it shows, and drops the banner once the store is back.
func TestStoreBanner(t *testing.T) {
	f := newFixture()
	p := openPage(t, f, "#/jobs", wide)
	p.expect("status of 503")
	p.waitFor(`document.querySelectorAll('#jobs tbody tr[data-job]').length === 7`, "the jobs")
	if hidden := evalJS[bool](p, `document.getElementById('store-banner').hidden`); !hidden {
		t.Fatal("store banner shown while the store works")
	}
	f.setStoreOut(true)
	got := p.waitText("#store-banner", "cannot write to its database")
	if !strings.Contains(got, "connection refused") || !strings.Contains(got, "refuses changes") ||
		!strings.Contains(got, "without the ended jobs") {
		t.Errorf("store banner = %q, want the cause and what it means", got)
	}
	if n := evalJS[int](p, `document.querySelectorAll('#jobs tbody tr[data-job]').length`); n != 7 {
		t.Errorf("%d job rows during the outage, want 7", n)
	}
	f.setStoreOut(false)
	p.waitFor(`document.getElementById('store-banner').hidden`, "the store banner to go")
}

// TestUsageView: GPU-hours per group with each one's share of the total,
// the grouping chosen in the page, and sshare's table.
func TestUsageView(t *testing.T) {
	f := newFixture()
	p := openPage(t, f, "#/usage", wide)
	row := p.waitText(`#usage tr[data-usage="vision"]`, "30.00")
	if !strings.Contains(row, "75.0% of the GPU-hours listed") {
		t.Errorf("vision row %q, want its share of the total", row)
	}
	p.waitText("#usage-total", "40.00 GPU-hours")
	// The rank and the decay, as allot usage gives them (trial
	// 2026-11-29j J7).
	if ann := p.waitText(`#shares tr[data-account="research/ann"]`, "0.6000"); !strings.HasSuffix(strings.TrimSpace(ann), "2 of 3") {
		t.Errorf("research/ann row %q, want its rank, 2 of 3", ann)
	}
	p.waitText("#shares-decay", "Usage halves every 168h, applied at each 24h period's end, next in 2h 52m.")
	// A project has no factor of its own under fair tree: "-", not 0.
	if acc := p.waitText(`#shares tr[data-account="research"]`, "0.4000"); !strings.HasSuffix(strings.TrimSpace(acc), "-") {
		t.Errorf("research row %q, want no fair-share factor (-)", acc)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('u-by'); s.value = 'user'; s.dispatchEvent(new Event('change')); })()`))
	p.waitText(`#usage tr[data-usage="ann"]`, "25.00")
	if got := f.seen("GET /usage?since=7d&by=user"); len(got) == 0 {
		t.Errorf("no request grouped by user; requests %v", f.seen("GET /usage"))
	}
}

func TestTokenPrompt(t *testing.T) {
	f := newFixture()
	f.token = "s3cret"
	p := openPage(t, f, "#/pools", wide)
	p.expect("status of 401")
	checkSignIn(t, p, "asks for an API token")
	// A wrong token: the master's refusal, and the same help.
	p.do(chromedp.SendKeys(chromedp.ID("login-token"), "wrong"), chromedp.Click(chromedp.CSS("#login-form button")))
	checkSignIn(t, p, "The master refused the token (invalid API token: the token is not known)")
	p.do(chromedp.SendKeys(chromedp.ID("login-token"), "s3cret"), chromedp.Click(chromedp.CSS("#login-form button")))
	p.waitText("#pools", "fair_share")
	p.waitFor(`document.getElementById('login').hidden`, "the sign-in form to go")
	p.waitText("#who", "Signed in as ann")
	p.waitFor(`document.getElementById('updated').textContent.startsWith('Updated')`, "the header to say when it updated")
	if !evalJS[bool](p, `document.getElementById('who-projects').hidden`) {
		t.Errorf("who = %q, want no project restriction for a user without one", p.waitText("#who", "ann"))
	}
	// Signing out forgets the token: the view is dropped and the master
	// asks again.
	p.do(chromedp.Click(chromedp.ID("signout")))
	p.waitText("#login", "asks for an API token")
	p.waitFor(`!document.querySelector('#pools tr[data-pool]') && document.getElementById('who').hidden`,
		"the pools and the user to go")
}

// checkSignIn checks the sign-in panel of p says lead and where a browser
// user gets a token, not the master's words to curl users (the
// Authorization header), and that the header says "Not signed in"
// rather than a "Loading…" that never ends (trial 2026-11-29d D8).
func checkSignIn(t *testing.T, p *page, lead string) {
	t.Helper()
	text := p.waitText("#login", lead)
	for _, want := range []string{"allot token create > FILE", "allot dev", "DATA/admin.token"} {
		if !strings.Contains(text, want) {
			t.Errorf("sign-in panel %q, want it to say %q", text, want)
		}
	}
	if strings.Contains(text, "Authorization") {
		t.Errorf("sign-in panel %q: the master's words for curl users", text)
	}
	p.waitFor(`document.getElementById('updated').textContent === 'Not signed in'`, `the header to say "Not signed in", not "Loading…"`)
}

// TestWhoShowsConfigProjects: a user whom the master's configuration
// (users: section) limits to some projects sees them beside the name,
// as allot whoami says them.
func TestWhoShowsConfigProjects(t *testing.T) {
	f := newFixture()
	f.token, f.configProjects = "s3cret", []string{"vision", "nlp"}
	p := openPage(t, f, "#/pools", wide)
	p.expect("status of 401")
	p.waitText("#login", "asks for an API token")
	p.do(chromedp.SendKeys(chromedp.ID("login-token"), "s3cret"), chromedp.Click(chromedp.CSS("#login-form button")))
	who := p.waitText("#who", "Signed in as ann")
	if !strings.Contains(who, "ann, submits only to vision, nlp") {
		t.Errorf("who = %q, want the projects ann submits only to", who)
	}
	if title := evalJS[string](p, `document.getElementById('who-projects').title`); !strings.Contains(title, "users: section") {
		t.Errorf("who's title = %q, want where the restriction comes from", title)
	}
}

func TestNodesProjectsPoolsViews(t *testing.T) {
	// leaving makes gpu-a1's agent shut down cleanly (the API's leaving).
	leaving := func(f *fixture) { f.nodes[0].Leaving = true }
	cases := []struct {
		hash, sel string
		want      []string
		change    func(*fixture) // of the fixture, before the page opens
	}{
		{"#/nodes", `#nodes tr[data-node="t4-1"]`, []string{"lost", "T4", "0 / 4", "rack=r1", "5m"}, nil},
		{"#/nodes", `#nodes tr[data-node="gpu-a1"]`, []string{"up", "8 / 8", "8 × NVIDIA A100", "s ago"}, nil},
		{"#/nodes", `#nodes tr[data-node="gpu-a2"]`, []string{"draining", "up", "4 / 8", "new PSU", "root", " ago)"}, nil},
		{"#/nodes", `#nodes-summary`, []string{"3 nodes, 1 not up, 1 drained."}, nil},
		{"#/nodes", `#nodes tr[data-node="gpu-a1"].row-warn`, []string{"up leaving", "8 / 8"}, leaving},
		{"#/nodes", `#nodes-summary`, []string{"3 nodes, 1 not up, 1 leaving, 1 drained."}, leaving},
		{"#/", `#ov-nodes li[data-node="gpu-a1"] .node-head`, []string{"gpu-a1 up leaving"}, leaving},
		{"#/projects", `#projects tr[data-project="vision"]`, []string{"6 of quota 4, over quota by 2; 2 more in pools without quota", "over quota", "in research", "12"}, nil},
		{"#/projects", `#projects tr[data-project="nlp"]`, []string{"4 of quota 12", "in research"}, nil},
		{"#/projects", `#fairness tr[data-fair="nlp"]`, []string{"deprived", "75.0%", "10.0%", "1h 30m", "while 3 jobs waited"}, nil},
		{"#/projects", `#fairness tr[data-fair="research"]`, []string{"fair", "100.0%", "45.0%", "30m"}, nil},
		{"#/projects", `#fairness tr[data-fair="sandbox"]`, []string{"waits for a node", "pool batch, which has no node up", "not counted as deprivation"}, nil},
		{"#/projects", `#fairness-since`, []string{"Measured since the cluster started", "2d ago", "the window began before it"}, nil},
		// The reservation's start counts from the package's start (at), so
		// "in 40m" may read 39m by the time a loaded machine gets here.
		{"#/pools", `#pools tr[data-pool="a100"]`, []string{"priority", "1m", "pack", "12 / 16", "job 3 (8 slots) in ", "4 slots for 40m"}, nil},
		{"#/pools", `#pools tr[data-pool="t4"]`, []string{"fair_share", "0 slots, no reservation ahead"}, nil},
	}
	for _, c := range cases {
		name := c.sel
		if c.change != nil {
			name += " leaving"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture()
			if c.change != nil {
				c.change(f)
			}
			p := openPage(t, f, c.hash, wide)
			got := p.waitText(c.sel, c.want[0])
			for _, w := range c.want[1:] {
				if !strings.Contains(got, w) {
					t.Errorf("%s = %q, want %q", c.sel, got, w)
				}
			}
		})
	}
	t.Run("project tree order", func(t *testing.T) {
		p := openPage(t, newFixture(), "#/projects", wide)
		p.waitFor(`document.querySelectorAll('#projects tr[data-project]').length === 3`, "three projects")
		if got := rowIDs(p, "#projects tr[data-project]", "project"); !slices.Equal(got, []string{"research", "nlp", "vision"}) {
			t.Errorf("project order = %v, want the parent before its children", got)
		}
		if over := rowIDs(p, "#projects tr.over-quota", "project"); !slices.Equal(over, []string{"vision"}) {
			t.Errorf("over-quota rows = %v, want [vision]", over)
		}
	})
	// A parent's queued count includes its sub-projects', so its link
	// lists their jobs too; a leaf's names the project alone.
	t.Run("queued links include sub-projects", func(t *testing.T) {
		f := newFixture()
		p := openPage(t, f, "#/projects", wide)
		p.waitFor(`document.querySelectorAll('#projects tr[data-project]').length === 3`, "three projects")
		links := map[string]string{
			"research": "#/jobs?state=queued&project=research&subprojects=true",
			"vision":   "#/jobs?state=queued&project=vision",
		}
		for name, want := range links {
			if href := evalJS[string](p, `document.querySelector('#projects tr[data-project="`+name+`"] td:last-child a').getAttribute('href')`); href != want {
				t.Errorf("queued link of %s = %q, want %q", name, href, want)
			}
		}
		var want []string
		for _, j := range f.jobs {
			if j.State == "queued" && (j.Project == "vision" || j.Project == "nlp") {
				want = append(want, strconv.FormatInt(j.ID, 10))
			}
		}
		if len(want) == 0 {
			t.Fatal("the fixture has no queued job in a sub-project of research")
		}
		p.goTo(links["research"])
		p.waitFor(fmt.Sprintf(`document.querySelectorAll('#jobs tbody tr[data-job]').length === %d`, len(want)), "the sub-projects' queued jobs")
		if got := rowIDs(p, "#jobs tbody tr", "job"); !slices.Equal(got, want) {
			t.Errorf("rows = %v, want %v", got, want)
		}
		if !evalJS[bool](p, `document.getElementById('f-subprojects').checked`) {
			t.Error("the sub-projects box is not checked")
		}
	})
}

func TestMissingThingsSayNotFound(t *testing.T) {
	cases := []struct{ name, hash, sel, want, expect string }{
		{"route", "#/nope", "main", "There is no view at #/nope", ""},
		{"job", "#/jobs/99", "#action-msg", "There is no job 99: job 99 does not exist", "status of 404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := openPage(t, newFixture(), c.hash, wide)
			if c.expect != "" {
				p.expect(c.expect)
			}
			p.waitText(c.sel, c.want)
			if hidden := evalJS[bool](p, `document.getElementById('banner').hidden`); !hidden {
				t.Errorf("the unreachable banner shows for a missing %s", c.name)
			}
		})
	}
}

// Every view fits a narrow screen: wide tables scroll inside their own
// box, and nothing widens the page.
func TestViewsFitNarrowScreen(t *testing.T) {
	views := []struct{ hash, ready string }{
		{"#/", "#ov-nodes .gpu"},
		{"#/jobs", "#jobs tr[data-job]"},
		{"#/jobs/1", "#attempts tr[data-attempt]"},
		{"#/nodes", "#nodes tr[data-node]"},
		{"#/projects", "#projects tr[data-project]"},
		{"#/pools", "#pools tr[data-pool]"},
	}
	p := openPage(t, newFixture(), "#/", narrow)
	for _, v := range views {
		t.Run(v.hash, func(t *testing.T) {
			p := p.sub(t)
			p.goTo(v.hash)
			p.waitFor(fmt.Sprintf("!!document.querySelector(%q)", v.ready), v.ready)
			sizes := evalJS[[]int](p, `[document.documentElement.scrollWidth, window.innerWidth]`)
			if sizes[0] > sizes[1] {
				t.Errorf("%s is %d px wide on a %d px screen", v.hash, sizes[0], sizes[1])
			}
		})
	}
}

// TestJobDetailChartsMetrics checks the experiment's chart: one line per
// trial, the stopped one dashed, and a caption naming the metric.
func TestJobDetailChartsMetrics(t *testing.T) {
	p := openPage(t, newFixture(), "#/jobs/1", wide)
	caption := p.waitText("#metric-caption", "loss over steps")
	if !strings.Contains(caption, "1 trials stopped early") || !strings.Contains(caption, "5 reports") ||
		!strings.Contains(caption, "Best: trial 0, loss 0.2 at step 9") {
		t.Errorf("caption = %q", caption)
	}
	if n := evalJS[int](p, `document.querySelectorAll('#metric-chart polyline.trial').length`); n != 2 {
		t.Fatalf("%d trial lines, want 2", n)
	}
	dash := evalJS[string](p, `document.querySelector('#metric-chart polyline[data-task="1"]').getAttribute('stroke-dasharray')`)
	if dash == "" {
		t.Errorf("the stopped trial's line is not dashed")
	}
	if pts := evalJS[string](p, `document.querySelector('#metric-chart polyline[data-task="0"]').getAttribute('points')`); strings.Count(pts, ",") != 3 {
		t.Errorf("trial 0 points %q, want 3", pts)
	}
	p2 := openPage(t, newFixture(), "#/jobs/2", wide)
	p2.waitText("#fields", "running")
	if hidden := evalJS[bool](p2, `document.getElementById('metrics').hidden`); !hidden {
		t.Errorf("a job without reports shows the metrics panel")
	}
}

// TestJobsPagesEndedJobs: the jobs view shows the ended jobs 200 at a
// time, newest first, and "More" reads the next page.
func TestJobsPagesEndedJobs(t *testing.T) {
	f := newFixture()
	for i := range 250 {
		j := job(int64(100+i), fmt.Sprintf("done-%d", i), "completed", "vision", "a100", 1, 1, 0, 42, nil)
		j.EndedAt = atp(-time.Hour)
		f.jobs = append(f.jobs, j)
	}
	p := openPage(t, f, "#/jobs", wide)
	p.waitFor(`document.querySelectorAll('#jobs tbody tr[data-job]').length === 206`, "the live jobs and 200 ended ones")
	if first := evalJS[string](p, `document.querySelectorAll('#jobs tbody tr[data-job]')[6].dataset.job`); first != "349" {
		t.Errorf("first ended row = job %s, want the newest, 349", first)
	}
	p.waitText("#jobs-count", "older ended jobs are not shown yet")
	p.do(chromedp.Click(chromedp.ID("jobs-more")))
	p.waitFor(`document.querySelectorAll('#jobs tbody tr[data-job]').length === 257`, "every job")
	p.waitFor(`document.getElementById('jobs-more').hidden`, "the More button to go")
	if !slices.ContainsFunc(f.seen("GET /jobs"), func(r string) bool { return strings.Contains(r, "limit=200&cursor=150") }) {
		t.Errorf("no request for the page after job 150 among %v", f.seen("GET /jobs"))
	}
}

// TestJobsProjectWithoutRole: filtering the jobs by a project the user
// has no role in says that only the user's own jobs there are listed (the
// master answers those alone), as allot jobs --project notes; a project
// the user reads says nothing of the kind.
// TestJobsStateAllAndRefusedState: state=all (allot jobs -t all) is no
// filter, the State dropdown's "any"; a state the master refuses is said
// in place, with the page's header, filters and their pools and projects
// still there (trial 2026-11-29c C7: the page fell apart).
func TestJobsStateAllAndRefusedState(t *testing.T) {
	for _, c := range []struct {
		name, hash string
		rows       int    // job rows shown
		refused    string // the error said, "" for none
		state      string // the State dropdown's value
	}{
		{"all is every job", "#/jobs?state=all", 7, "", ""},
		{"an unknown state is refused in place", "#/jobs?state=bogus", 0, `state "bogus": expected one of`, "bogus"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture() // a server of its own: no token kept from another case
			f.token = "s3cret"
			p := openPage(t, f, c.hash, wide)
			p.expect("status of 401")
			if c.refused != "" {
				p.expect("status of 400")
			}
			p.do(chromedp.SendKeys(chromedp.ID("login-token"), "s3cret"), chromedp.Click(chromedp.CSS("#login-form button")))
			p.waitText("#who", "Signed in as")
			if c.refused != "" {
				p.waitText(".view-error", c.refused)
			} else {
				p.waitFor(fmt.Sprintf(`document.querySelectorAll('#jobs tbody tr[data-job]').length === %d`, c.rows), "every job's row")
			}
			p.waitFor(`document.querySelectorAll('#f-pool option').length > 1 && document.querySelectorAll('#f-project option').length > 1`,
				"the pools and projects to choose from")
			if v := evalJS[string](p, `document.getElementById('f-state').value`); v != c.state {
				t.Errorf("State dropdown %q, want %q", v, c.state)
			}
			if all := evalJS[bool](p, `[...document.querySelectorAll('#f-state option')].some(o => o.value === 'all')`); all {
				t.Errorf("the State dropdown offers all")
			}
		})
	}
}

func TestJobsProjectWithoutRole(t *testing.T) {
	f := newFixture()
	f.who = &api.Whoami{User: "ann", Roles: map[string]string{"vision": "member"}}
	for _, c := range []struct {
		name, project string
		note          bool
	}{
		{"no role in nlp", "nlp", true},
		{"a member of vision", "vision", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := openPage(t, f, "#/jobs?project="+c.project, wide)
			got := p.waitText("#jobs-count", "match the filters")
			want := "Only your own jobs in project " + c.project + " are listed: you have no role there."
			if strings.Contains(got, want) != c.note {
				t.Errorf("count line %q; note %q wanted: %v", got, want, c.note)
			}
		})
	}
}

// TestLogsNameGangParts: a line of a task across several nodes shows the
// rank and node of the part that printed it, as allot job logs does; a
// single node's lines show none.
func TestLogsNameGangParts(t *testing.T) {
	f := newFixture()
	r1 := 1
	f.logs["1/0"] = append(f.logs["1/0"], api.LogLine{Task: 0, Attempt: 1, Seq: int64(len(f.logs["1/0"]) + 1),
		Time: time.Now(), Stream: "stdout", Text: "hello from the second node", Rank: &r1, Node: "gpu-b1"})
	p := openPage(t, f, "#/jobs/1", wide)
	out := p.waitText("#log", "hello from the second node")
	if !strings.Contains(out, "[rank 1 gpu-b1] hello from the second node") {
		t.Errorf("log = %q, want the gang's line labelled with its rank and node", out)
	}
	if strings.Contains(out, "[rank 0") || strings.Count(out, "[rank") != 1 {
		t.Errorf("log = %q, want only the gang's line labelled", out)
	}
}
