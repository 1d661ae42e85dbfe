package k8s_test

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/allot-sched/allot/k8s"
	"github.com/allot-sched/allot/sched"
)

// TestProjectsReclaim: project b's gang borrows project a's idle GPUs;
// when a's pod arrives, the scheduler evicts the gang pods over b's quota
// or share to give them back, and b keeps its own (the gang's
// min-available is 2, so it survives with 2 pods). b is one job (a gang)
// because the core shares by job: with b as four single pods, fair share
// would hand whole tasks out in submission order and a could get none.
func TestProjectsReclaim(t *testing.T) {
	for _, policy := range []sched.Policy{sched.PolicyQuota, sched.PolicyFairShare} {
		t.Run(string(policy), func(t *testing.T) {
			c := newCluster(t)
			c.node("a", 4)
			for i := range 4 {
				labels := gang("b", 2)
				labels[k8s.LabelProject] = "b"
				c.pod(fmt.Sprintf("b-%d", i), 1, labels)
			}
			c.start(func(cfg *k8s.Config) {
				cfg.Pool.Policy, cfg.PreemptionGrace = policy, 0
				// Project a is the test's namespace; b is named by label.
				cfg.Projects = []k8s.Project{
					{Name: "a", Quota: 2, OverQuotaWeight: 1, Shares: 1, Namespaces: []string{c.name}},
					{Name: "b", Quota: 2, OverQuotaWeight: 1, Shares: 1}}
			})
			c.waitFor("b's pods bound past its quota", all(bound))
			c.pod("a-0", 2, nil)
			pods := c.waitFor("a's pod bound", func(pods map[string]*v1.Pod) bool { return bound(pods["a-0"]) })
			time.Sleep(500 * time.Millisecond) // more passes: nothing else is evicted
			pods = c.pods()
			left := 0
			for i := range 4 {
				if p := pods[fmt.Sprintf("b-%d", i)]; bound(p) && !terminating(p) {
					left++
				}
			}
			if left != 2 {
				t.Errorf("%d of b's pods left, want its quota of 2:\n%s", left, describe(pods))
			}
			checkCapacity(t, c, pods, map[string]int{"a": 4})
		})
	}
}
