package scenario

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/yamlfield"
)

// accountInfo is what the job checks need to know about an account.
type accountInfo struct {
	line   int
	parent string
	// kids says some account (declared, or a user leaf) hangs under it.
	kids bool
	// direct is the line of the first job that charges the account
	// itself rather than a user under it; 0 for none.
	direct int
}

// accountList parses the accounts section and checks the tree: parents
// exist and form no cycle.
func (p *parser) accountList(raw *yaml.Node) []Account {
	p.accounts = map[string]*accountInfo{}
	p.accountsKnown = true
	if raw == nil {
		return nil
	}
	items, ok := p.List(raw, "accounts", "accounts")
	p.accountsKnown = ok
	out := make([]Account, 0, len(items))
	var fields []*yamlfield.Fields
	for i, item := range items {
		a, f := p.account(item, i)
		out = append(out, a)
		fields = append(fields, f)
	}
	for i := range out {
		if fields[i] != nil {
			p.checkAccountParent(fields[i], &out[i])
		}
	}
	if len(out) > 0 && p.FairSharePools == 0 {
		p.Errorf(raw, "accounts", "no multifactor pool has a fair_share weight, so accounts would never apply")
	}
	return out
}

func (p *parser) account(raw *yaml.Node, i int) (Account, *yamlfield.Fields) {
	a := Account{Line: raw.Line, Shares: 1}
	path := fmt.Sprintf("accounts[%d]", i)
	f, ok := p.Fields(raw, path)
	if !ok {
		p.accountsKnown = false
		return a, nil
	}
	if f.Required("name") && yamlfield.Field(f, "name", &a.Name, name) {
		f.Path = path + " " + yamlfield.Quote(a.Name)
		switch first, dup := p.accounts[a.Name]; {
		case dup:
			f.Errorf("name", "duplicate account name %s (first at line %d)", yamlfield.Quote(a.Name), first.line)
		case !p.userLeaf(f, &a):
			p.accountsKnown = false
		default:
			p.accounts[a.Name] = &accountInfo{line: raw.Line}
			p.accountOrder = append(p.accountOrder, a.Name)
		}
	} else {
		p.accountsKnown = false
	}
	if !strings.Contains(a.Name, "/") {
		yamlfield.Field(f, "parent", &a.Parent, name)
	}
	yamlfield.Field(f, "shares", &a.Shares, spec.NonNegative)
	yamlfield.Field(f, "usage", &a.Usage, spec.NonNegative)
	f.Done()
	if info := p.accounts[a.Name]; info != nil && info.line == raw.Line {
		info.parent = a.Parent
	}
	return a, f
}

// userLeaf reads a declared account whose name has a "/": the leaf of
// user USER under account ACCOUNT, "ACCOUNT/USER", which jobs naming that
// account and user charge. A history export declares the live master's
// leaves so, with their shares and usage. The parent is the account
// before the "/" (a parent field would be a second say), and nothing may
// hang under a user. It reports false for a name it refuses.
func (p *parser) userLeaf(f *yamlfield.Fields, a *Account) bool {
	acc, user, ok := strings.Cut(a.Name, "/")
	switch {
	case !ok:
		return true
	case acc == "" || user == "" || strings.Contains(user, "/"):
		f.Errorf("name", "a name with \"/\" declares a user's leaf, ACCOUNT/USER, with one \"/\" between two names")
		return false
	case f.Node("parent") != nil:
		f.Lookup("parent")
		f.Errorf("parent", "the leaf of user %s is under account %s, before the \"/\"; leave parent out", yamlfield.Quote(user), yamlfield.Quote(acc))
	}
	a.Parent = acc
	return true
}

// checkAccountParent checks that an account's parent exists and that
// following parents never comes back to it.
func (p *parser) checkAccountParent(f *yamlfield.Fields, a *Account) {
	if a.Parent == "" || !p.accountsKnown {
		return
	}
	parent := p.accounts[a.Parent]
	switch {
	case a.Parent == a.Name:
		f.Errorf("parent", "an account cannot be its own parent")
		return
	case parent == nil:
		f.Errorf("parent", "unknown account %s%s (accounts: %s)", yamlfield.Quote(a.Parent),
			yamlfield.Suggest(a.Parent, p.accountOrder), yamlfield.OneOf(p.accountOrder))
		return
	}
	if strings.Contains(a.Parent, "/") {
		f.Errorf("parent", "account %s is a user's leaf, and nothing goes under a user", yamlfield.Quote(a.Parent))
		return
	}
	parent.kids = true
	// The project tree's walk; unlike projects, each account on a cycle
	// or leading into one is reported.
	_, back, stuck := spec.WalkParents(a.Name, func(name string) (string, bool) {
		if name == a.Name {
			return a.Parent, true // this entry's, should its name be a duplicate
		}
		info := p.accounts[name]
		if info == nil {
			return "", false
		}
		return info.parent, true
	}, len(p.accounts))
	if back || stuck {
		f.Errorf("parent", "the parents of account %s come back to it (a cycle)", yamlfield.Quote(a.Name))
	}
}

// directCharge is a job of a fair-tree pool that charges an account
// rather than a user under it.
type directCharge struct {
	f       *yamlfield.Fields
	account string
	pool    string
}

// checkJobMultifactor checks what a job says for a multifactor pool: an
// account exactly when its pool has a fair-share weight, nice only in
// multifactor pools, and no 1-99 priority there, which multifactor pools
// ignore (their priority is computed, and higher runs first).
func (p *parser) checkJobMultifactor(f *yamlfield.Fields, j *Job, fl *jobFlags, info *poolInfo) {
	if info.policy == "" {
		return
	}
	mf := info.policy == PolicyMultifactor
	pool := yamlfield.Quote(j.Pool)
	switch {
	case j.Account != "" && mf && !info.fs:
		f.Errorf("account", "pool %s has no fair_share weight, so account would never apply", pool)
	case j.Account != "" && !mf:
		f.Errorf("account", "only multifactor pools charge accounts, and pool %s's policy is %s", pool, info.policy)
	case j.Account == "" && info.fs && f.Node("account") == nil:
		p.ErrorAt(f.Line, f.Path, nil, "missing required field \"account\": pool %s weighs fair share, so its jobs charge an account", pool)
	}
	if fl.nice && !mf {
		f.Errorf("nice", "only multifactor pools compute a priority for nice to adjust, and pool %s's policy is %s", pool, info.policy)
	}
	if mf {
		for _, key := range []string{"priority", "priority_class"} {
			if f.Node(key) != nil {
				f.Errorf(key, "multifactor pool %s computes each job's priority (higher runs first) and ignores %s; use qos or nice", pool, key)
			}
		}
	}
	if j.Account != "" && info.fs {
		p.chargeAccount(f, j, info)
	}
}

// chargeAccount checks the job's account and makes the leaf of its user.
func (p *parser) chargeAccount(f *yamlfield.Fields, j *Job, info *poolInfo) {
	if !p.accountsKnown {
		return
	}
	a := p.accounts[j.Account]
	switch {
	case a == nil && len(p.accountOrder) == 0:
		f.Errorf("account", "unknown account %s: the file has no accounts section", yamlfield.Quote(j.Account))
	case a == nil:
		f.Errorf("account", "unknown account %s%s (accounts: %s)", yamlfield.Quote(j.Account),
			yamlfield.Suggest(j.Account, p.accountOrder), yamlfield.OneOf(p.accountOrder))
	case j.User != "":
		a.kids = true
		leaf := UserAccount(j.Account, j.User)
		if p.accounts[leaf] == nil && !slices.ContainsFunc(p.userLeaves, func(u Account) bool { return u.Name == leaf }) {
			p.userLeaves = append(p.userLeaves, Account{Name: leaf, Parent: j.Account, Shares: 1, User: true, Line: j.Line})
		}
	case info.fsMode == FairShareTree:
		p.direct = append(p.direct, directCharge{f: f, account: j.Account, pool: j.Pool})
	}
}

// epoch reads the Unix time of time 0, which only the decay of accounts
// reads.
func (p *parser) epoch(f *yamlfield.Fields) int64 {
	var e int64
	if yamlfield.Field(f, "epoch", &e, yamlfield.Int64In(0, 1<<40, "a Unix time in seconds >= 0")) && p.FairSharePools == 0 {
		f.Errorf("epoch", "no multifactor pool has a fair_share weight, so the decay it aligns would never apply")
	}
	return e
}

// checkLeaves rejects jobs of fair-tree pools that charge an account with
// accounts or users under it: fair tree ranks leaves only.
func (p *parser) checkLeaves() {
	for _, d := range p.direct {
		if a := p.accounts[d.account]; a != nil && a.kids {
			d.f.Errorf("account", "account %s has accounts or users under it, and pool %s (fair_tree) charges leaves only; name a leaf account, or give the job a user",
				yamlfield.Quote(d.account), yamlfield.Quote(d.pool))
		}
	}
}

// checkTopology accepts topology only on tasks that may span nodes:
// larger than the largest node of their pool (of their GPU type).
func (p *parser) checkTopology(f *yamlfield.Fields, j *Job, fl *jobFlags, info *poolInfo) {
	if !fl.topology || !info.clean || info.policy == "" {
		return
	}
	largest := info.largest
	if j.GPU != "" {
		largest = info.largestOf[j.GPU]
	}
	if j.Slots <= largest {
		f.Errorf("topology", "a task of %d slots fits on one node (pool %s's largest%s has %d), so it never spans nodes and topology would never apply",
			j.Slots, yamlfield.Quote(j.Pool), gpuWord(j.GPU), largest)
	}
}

func gpuWord(gpu string) string {
	if gpu == "" {
		return " node"
	}
	return " " + gpu + " node"
}
