package master

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestExplainLimitAndRoom (trial n F1): a quota pool of 8 slots, project
// vision (quota 4, limit 6) runs job three (2 slots) and asks for a
// 6-slot job, which its limit holds back. Where nlp's job one holds 4
// slots, job three ending would not start it: past its quota it runs
// only on idle slots, and only 4 would be idle. The answer names both
// blockers and both jobs, its time is job one's end (the later), and it
// makes no promise that vision's own work alone would start it. Where
// nothing else runs, job three's end is enough, and the answer says so.
func TestExplainLimitAndRoom(t *testing.T) {
	const cfg = "pools:\n  - {name: teams, policy: quota}\ndefault_pool: teams\ndefault_project: vision\n" +
		"projects:\n  - {name: vision, quota: 4, limit: 6}\n  - {name: nlp, quota: 2}\n"
	tests := []struct {
		name     string
		nlp      bool // nlp's job one runs
		says     []string
		not      []string
		mustEnd  []string
		notAfter string // whose end NotBefore is
	}{
		{"limit and room: both named", true,
			[]string{"Two things hold it back: its project vision's limit in pool teams",
				"Once job {three} ends it would still wait: past its project's quota it runs only on idle slots (no_spare)",
				"It could start once jobs {three} and {one} end."},
			[]string{"not other projects'"}, []string{"three", "one"}, "one"},
		{"limit alone: its own work's end starts it", false,
			[]string{"Only project vision's own work in pool teams ending would start it", "it could start once job {three} ends"},
			[]string{"Two things hold it back", "still wait"}, []string{"three"}, "three"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, cfg)))
			n1 := h.agent("n1", 8)
			ids := map[string]int64{}
			if tt.nlp {
				ids["one"] = h.submit(`{"name": "one", "project": "nlp", "entrypoint": "x", "resources": {"time_limit": 3000, "slots": 4, "preemptible": true}}`)
				h.step()
				h.sync(n1)
			}
			ids["three"] = h.submit(`{"name": "three", "entrypoint": "x", "resources": {"time_limit": 1800, "slots": 2, "preemptible": true}}`)
			h.step()
			h.sync(n1)
			four := `{"name": "four", "entrypoint": "x", "resources": {"time_limit": 600, "slots": 6, "preemptible": true}}`
			// The trial's first look: submit --dry-run says the same.
			var dr api.DryRun
			if code := h.do("POST", "/api/v1/jobs?dry_run=true", four, &dr); code != 200 || dr.WouldStart == nil {
				t.Fatalf("dry run: %d, %+v", code, dr)
			}
			dry := dr.WouldStart.Message
			ids["four"] = h.submit(four)
			h.step()
			say := func(s string) string {
				for n, id := range ids {
					s = strings.ReplaceAll(s, "{"+n+"}", strconv.FormatInt(id, 10))
				}
				return s
			}
			x := explainAs(t, h, h.admin, ids["four"])
			if x.Pending == nil || x.Pending.Reason != "project_limit" {
				t.Fatalf("pending %+v, want project_limit", x.Pending)
			}
			cf := x.WouldStart
			if cf == nil {
				t.Fatalf("no would_start: %+v", x)
			}
			var says, not []string
			for _, s := range tt.says {
				says = append(says, say(s))
			}
			for _, s := range tt.not {
				not = append(not, say(s))
			}
			checkSays(t, "message", cf.Message, says, not)
			checkSays(t, "dry run", dry, says, not)
			var got []int64
			for _, r := range cf.MustEnd {
				got = append(got, r.ID)
			}
			var want []int64
			for _, n := range tt.mustEnd {
				want = append(want, ids[n])
			}
			if !slices.Equal(got, want) {
				t.Errorf("must end %v, want %v", got, want)
			}
			var end *int64
			for _, r := range cf.MustEnd {
				if r.ID == ids[tt.notAfter] && r.EndsAt != nil {
					u := r.EndsAt.Unix()
					end = &u
				}
			}
			if cf.NotBefore == nil || end == nil || cf.NotBefore.Unix() != *end {
				t.Errorf("not before %v, want job %s's end %v", cf.NotBefore, tt.notAfter, end)
			}
		})
	}
}

// TestExplainElasticGrowsFirst (trial n F12): a multifactor pool with
// backfill, one node of 4 slots; r (3 slots, 10 minutes) runs, elastic
// el (4 slots, min 1, QOS high) holds the last slot, and w (3 slots)
// heads the queue, reserved at r's end. When r ends, el, which outranks
// w, grows first into the freed slots: w's message says its reservation
// is no guarantee and why, and its counterfactual no longer promises a
// start once r ends, but names el's end too, and not as a preemption:
// the multifactor rule preempts no job that outranks w. Where el is of w's rank
// (no QOS), it does not grow ahead and nothing of it is said.
func TestExplainElasticGrowsFirst(t *testing.T) {
	const cfg = "pools:\n  - {name: default, policy: multifactor, backfill: true, multifactor: {qos: 100}}\n"
	tests := []struct {
		name, qos string
		reason    string // w's
		says, not []string
	}{
		{"el outranks w: it grows first", `, "qos": "high"`, "reserved",
			[]string{"no guarantee: job {el} (elastic, holds 1 of its 4 slots) ranks above it and grows first into slots that free",
				"Once job {r} ends, job {el} (elastic, holds 1 of its 4 slots) would grow first into the slots that free",
				"It could start on n1 once jobs {r} and {el} end."},
			[]string{"It could start on n1 once job {r} ends.", "or is preempted"}},
		{"el of w's rank: no growth ahead", "", "",
			nil, []string{"no guarantee", "would grow first"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, cfg)))
			n1 := h.agent("n1", 4)
			ids := map[string]int64{}
			ids["r"] = h.submit(jobSpec("r", 3, `, "time_limit": 600`))
			h.step()
			h.sync(n1, n1)
			ids["el"] = h.submit(jobSpec("el", 4, `, "min_slots": 1, "preemptible": true, "time_limit": 6000`+tt.qos))
			h.step()
			h.sync(n1, n1)
			ids["w"] = h.submit(jobSpec("w", 3, `, "time_limit": 600`))
			h.step()
			h.sync(n1, n1)
			h.step()
			say := func(s string) string {
				for n, id := range ids {
					s = strings.ReplaceAll(s, "{"+n+"}", strconv.FormatInt(id, 10))
				}
				return s
			}
			x := explainAs(t, h, h.admin, ids["w"])
			if x.Pending == nil || (tt.reason != "" && x.Pending.Reason != tt.reason) {
				t.Fatalf("pending %+v, want %s", x.Pending, tt.reason)
			}
			var says, not []string
			for _, s := range tt.says {
				says = append(says, say(s))
			}
			for _, s := range tt.not {
				not = append(not, say(s))
			}
			checkSays(t, "summary", x.Summary, says, not)
			if len(tt.says) > 0 {
				if cf := x.WouldStart; cf == nil || !slices.ContainsFunc(cf.MustEnd, func(r api.JobRef) bool { return r.ID == ids["el"] }) {
					t.Errorf("would start %+v: want job el among those that must end", cf)
				}
			}
		})
	}
}
