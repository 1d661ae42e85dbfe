package sim

import (
	"strings"
	"testing"
)

// lateExitSrc: a1's exit was heard of 500 s late (late_exits, LATE), so
// it holds its 4 slots until 600 but a is charged for them until 100
// only; b1 holds 3 slots from 0 to 800. At 600 a2 and b2 both want the 4
// slots: a, charged less than b, goes first. Charged until 600, a would
// have used more than b, and b2 would go first.
const lateExitSrc = `pools:
  - name: default
    policy: multifactor
    multifactor: {fair_share: 100, fair_share_mode: classic}
    nodes: [{name: n1, slots: 4}, {name: n2, slots: 3}]
accounts:
  - {name: a, shares: 1}
  - {name: b, shares: 1}
decay: {period: 5m, per_period: 0.5}
jobs:
  - {name: a1, account: a, submit: 0, slots: 4, duration: 600LATE}
  - {name: b1, account: b, submit: 0, slots: 3, duration: 800}
  - {name: a2, account: a, submit: 10, slots: 4, duration: 100}
  - {name: b2, account: b, submit: 10, slots: 4, duration: 100}
`

// TestLateExits: the charge of an attempt whose exit was heard of late
// ends at its exit, its slots freed at its end all the same, and only
// for the attempt the script names.
func TestLateExits(t *testing.T) {
	const head = `0 start a1 task=0 attempt=1 nodes=n1:4
0 start b1 task=0 attempt=1 nodes=n2:3
600 end a1 task=0 attempt=1 how=completed
`
	aFirst := head + `600 start a2 task=0 attempt=1 nodes=n1:4
700 end a2 task=0 attempt=1 how=completed
700 start b2 task=0 attempt=1 nodes=n1:4
800 end b1 task=0 attempt=1 how=completed
800 end b2 task=0 attempt=1 how=completed
`
	bFirst := head + `600 start b2 task=0 attempt=1 nodes=n1:4
700 end b2 task=0 attempt=1 how=completed
700 start a2 task=0 attempt=1 nodes=n1:4
800 end a2 task=0 attempt=1 how=completed
800 end b1 task=0 attempt=1 how=completed
`
	for _, c := range []struct{ name, late, want string }{
		{"exit heard at once", "", bFirst},
		{"exit heard late", ", late_exits: [{task: 0, before: 500}]", aFirst},
		{"another attempt's", ", late_exits: [{task: 0, attempt: 2, before: 500}]", bFirst},
		{"a little late", ", late_exits: [{task: 0, before: 10}]", bFirst},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkReplayLog(t, strings.Replace(lateExitSrc, "LATE", c.late, 1), c.want)
		})
	}
}
