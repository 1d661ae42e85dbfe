package master

import (
	"reflect"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/sched"
)

// fairLeafConfig is a multifactor pool weighing fair share in mode
// MODE, and three projects; nodes join it by default.
const fairLeafConfig = `
default_pool: shared
default_project: default
pools:
  - name: shared
    policy: multifactor
    backfill: true
    multifactor: {fair_share: 10000, age: 1000, max_age: 24h, fair_share_mode: MODE}
projects:
  - {name: default}
  - {name: vision, quota: 4}
  - {name: nlp, quota: 2}
`

// projectJob is jobSpec in project.
func projectJob(name, project string, slots int, extra string) string {
	return strings.Replace(jobSpec(name, slots, extra), "{", `{"project": "`+project+`", `, 1)
}

// TestDryRunFirstJobInProject: a user's first dry run in a project of a
// multifactor pool answers as the submission would (it starts at once on
// free slots), not with the core's error for an account not made yet
// ("account index -1 is out of range", schedule_error); and the dry run
// makes the leaf in its what-if copy only.
func TestDryRunFirstJobInProject(t *testing.T) {
	for _, mode := range []string{"classic", "fair_tree"} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, withConfig(mustConfig(t, strings.Replace(fairLeafConfig, "MODE", mode, 1))))
			a := h.agent("n1", 4)
			h.submitAs("alice", projectJob("a1", "vision", 1, `, "time_limit": 3600`))
			h.step()
			h.sync(a)
			h.step()
			h.m.lock()
			leaves, accounts := len(h.m.fair.leaves), len(h.m.fair.accounts)
			h.m.mu.Unlock()
			for _, user := range []string{"bob", "aaron"} { // a leaf after alice's, and one before it
				var d api.DryRun
				spec := projectJob("b1", "vision", 2, `, "time_limit": 60`)
				must200(t, h.doAs(h.as(user), "POST", "/api/v1/jobs?dry_run=true", spec, &d), "dry run")
				if !d.StartsNow || d.Pending != nil {
					t.Fatalf("%s's first dry run in vision: starts now %v, pending %+v; want it to start at once", user, d.StartsNow, d.Pending)
				}
			}
			h.m.lock()
			_, made := h.m.fair.leaves[leafKey{"vision", "bob"}]
			gotLeaves, gotAccounts := len(h.m.fair.leaves), len(h.m.fair.accounts)
			h.m.mu.Unlock()
			if made || gotLeaves != leaves || gotAccounts != accounts {
				t.Fatalf("after dry runs: bob's leaf made %v, %d leaves and %d accounts, want %d and %d as before",
					made, gotLeaves, gotAccounts, leaves, accounts)
			}
		})
	}
}

// TestLeafIn: the leaf a dry run makes in its copy is where the next
// rebuild puts it, and every job of the copy still charges its account.
func TestLeafIn(t *testing.T) {
	cfg := mustConfig(t, strings.Replace(fairLeafConfig, "MODE", "fair_tree", 1)+"users:\n  - {name: zoe, shares: 3}\n")
	existing := []leafKey{{"vision", "alice"}, {"vision", "carl"}, {"nlp", "bob"}}
	tests := []struct {
		name          string
		project, user string
	}{
		{"between two leaves of a project", "vision", "bert"},
		{"before every leaf", "default", "zed"},
		{"after every leaf, with the user's shares", "nlp", "zoe"},
		{"no user", "vision", ""},
		{"a leaf that exists", "vision", "carl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFairShare(sched.Decay{})
			for _, k := range existing {
				f.addLeaf(k.project, k.user)
			}
			f.rebuild(cfg)
			s := sched.Snapshot{Accounts: append([]sched.Account(nil), f.accounts...)}
			for _, k := range existing {
				s.Jobs = append(s.Jobs, sched.Job{ID: k.user, Account: f.account(k.project, k.user)})
			}
			s.Jobs = append(s.Jobs, sched.Job{ID: "fifo", Account: -1})
			got := f.leafIn(&s, cfg, tt.project, tt.user)

			want := newFairShare(sched.Decay{})
			for _, k := range append(existing, leafKey{tt.project, tt.user}) {
				want.addLeaf(k.project, k.user)
			}
			want.rebuild(cfg)
			if !reflect.DeepEqual(s.Accounts, want.accounts) {
				t.Fatalf("accounts\n%+v\nwant\n%+v", s.Accounts, want.accounts)
			}
			if w := want.account(tt.project, tt.user); got != w {
				t.Errorf("leaf at %d, want %d", got, w)
			}
			for i, k := range existing {
				if w := want.account(k.project, k.user); s.Jobs[i].Account != w {
					t.Errorf("job of %s charges account %d, want %d", k.user, s.Jobs[i].Account, w)
				}
			}
			if s.Jobs[len(existing)].Account != -1 {
				t.Errorf("a job charging no account charges %d", s.Jobs[len(existing)].Account)
			}
			if len(f.accounts) != 3+len(existing) || len(f.leaves) != len(existing) {
				t.Errorf("the master's tree changed: %d accounts, %d leaves", len(f.accounts), len(f.leaves))
			}
		})
	}
}

// TestUsageSharesFairTree: under fair tree, allot usage's shares rank
// the users only: a project no user ran in takes no rank (the two users
// get 1 and 1/2, not 1, 2/3 and the project 1/3), and the projects show
// no factor of their own (absent, "-" in the CLI), not 0.
func TestUsageSharesFairTree(t *testing.T) {
	h := newHarness(t, withConfig(mustConfig(t, strings.Replace(fairLeafConfig, "MODE", "fair_tree", 1))))
	h.submitAs("alice", projectJob("a1", "vision", 1, ""))
	h.submitAs("bob", projectJob("b1", "nlp", 1, ""))
	h.step()
	var u api.Usage
	must200(t, h.do("GET", "/api/v1/usage", nil, &u), "usage")
	got := map[string]*float64{}
	for _, s := range u.Shares {
		got[s.Account] = s.FairShare
	}
	want := map[string]float64{"vision/alice": 1, "nlp/bob": 0.5}
	for _, acc := range []string{"default", "vision", "nlp", "vision/alice", "nlp/bob"} {
		fs, ok := got[acc]
		if !ok {
			t.Fatalf("no share for account %s in %+v", acc, u.Shares)
		}
		w, ranked := want[acc]
		switch {
		case !ranked && fs != nil:
			t.Errorf("%s: fair share %v, want none (not a user)", acc, *fs)
		case ranked && (fs == nil || *fs != w):
			t.Errorf("%s: fair share %v, want %v", acc, fs, w)
		}
	}
}
