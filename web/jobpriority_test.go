package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/allot-sched/allot/api"
)

// TestJobPageMultifactor: the page of a job waiting in a multifactor
// pool shows the multifactor priority with its factors, its QOS and nice,
// and says the 1-99 priority is not read there; it offers the QOS and
// nice update, not Set priority (trial 2026-11-29i I7).
func TestJobPageMultifactor(t *testing.T) {
	f := newFixture()
	f.pools[0].Policy = "multifactor"
	f.jobs[4].Pending.Priority = 5500.0066
	f.factors = map[int64]*api.Factors{5: {Age: 0, FairShare: 0.5, JobSize: 1, QOS: 0, Priority: 5500.0066}}
	// Where its user ranks and how usage decays, as allot explain says
	// (trial 2026-11-29j J7).
	f.fairNote = "rank 1 of 4 users, tied with 1; usage halves every 168h, applied at each 24h period's end, next in 2h 52m"
	p := openPage(t, f, "#/jobs/5", wide)
	p.waitText("#mf-priority", "5500.0066 (age 0.000, fair share 0.500, size 1.000, QOS 0.000, pool 0.000, nice 0)")
	if got := p.waitText("#mf-fair-share", "rank"); got != "0.500 ("+f.fairNote+")" {
		t.Errorf("fair share %q, want the factor with rank and decay", got)
	}
	fields := p.waitText("#fields", "Priority (1-99)")
	if !strings.Contains(fields, "42: not read in pool a100, whose queue is ordered by the multifactor priority") {
		t.Errorf("details %q, want the 1-99 priority said not read", fields)
	}
	p.waitText("#mf-note", "Pool a100 orders its queue by multifactor priority (age, fair share, job size, QOS, pool, less nice)")
	if hidden := evalJS[bool](p, `document.getElementById('priority-form').hidden`); !hidden {
		t.Errorf("Set priority is offered in a multifactor pool")
	}
	p.waitFor(`document.getElementById('nice').value === '0'`, "the current nice in the input")
	p.do(chromedp.Evaluate[chromedp.Void](`(e => { e.focus(); e.value = ''; e.dispatchEvent(new Event('input')); })(document.getElementById('nice'))`),
		chromedp.SendKeys(chromedp.ID("nice"), "100"),
		chromedp.SendKeys(chromedp.ID("qos"), "high"),
		chromedp.Click(chromedp.ID("set-qos-nice")))
	p.waitText("#confirm", "Set the QOS high and nice 100 of job 5?")
	p.do(chromedp.Click(chromedp.ID("confirm-ok")))
	p.waitText("#action-msg", "Job 5 now has QOS high and nice 100")
	if got := f.seen("PATCH /jobs/5"); len(got) != 1 || got[0] != `PATCH /jobs/5 {"qos":"high","nice":100}` {
		t.Errorf("PATCH requests = %q, want one with qos and nice", got)
	}
}

// TestJobPagePriorityPool: in a pool that orders by the 1-99 priority
// the page keeps Set priority and offers no QOS and nice update.
func TestJobPagePriorityPool(t *testing.T) {
	p := openPage(t, newFixture(), "#/jobs/5", wide)
	p.waitFor(`document.getElementById('priority').value === '42'`, "the current priority in the input")
	if hidden := evalJS[bool](p, `document.getElementById('qos-nice-form').hidden`); !hidden {
		t.Errorf("the QOS and nice update is offered in a priority pool")
	}
	if n := evalJS[int](p, `document.querySelectorAll('#mf-priority').length`); n != 0 {
		t.Errorf("a priority pool's job shows a multifactor priority")
	}
}
