package k8s

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/allot-sched/allot/sched"
)

// Evict is a running pod to evict and the job (a pod's or gang's key)
// that needs its GPUs.
type Evict struct {
	Pod *v1.Pod
	For string
}

// victims are the pods the plan preempts or moves, each once, but none
// for a pod whose preemptionPolicy is Never (the core has no per-job
// switch for it, so its preemptions are dropped here). A bound pod
// cannot move in Kubernetes, so a moved pod is evicted like a preempted
// one; re-created by its controller, it is placed again by a later pass.
// A gang that would keep fewer bound pods than its min-available loses
// them all: the rest could not work and would only hold GPUs.
func victims(p *Pass, plan *sched.Plan) []Evict {
	type victim struct{ alloc, forJob int }
	var vs []victim
	for _, pr := range plan.Preemptions {
		if !p.Jobs[pr.For].NoPreempt {
			vs = append(vs, victim{pr.Alloc, pr.For})
		}
	}
	for _, mv := range plan.Moves {
		if !p.Jobs[mv.For].NoPreempt {
			vs = append(vs, victim{mv.Alloc, mv.For})
		}
	}
	var out []Evict
	seen := map[types.UID]bool{}
	add := func(pod *v1.Pod, forJob int) {
		if !seen[pod.UID] {
			seen[pod.UID] = true
			out = append(out, Evict{Pod: pod, For: p.Snap.Jobs[forJob].ID})
		}
	}
	lost := make([]int, len(p.Jobs))
	why := make([]int, len(p.Jobs))
	for _, v := range vs {
		add(p.AllocPods[v.alloc], v.forJob)
		j := p.Snap.Allocs[v.alloc].Job
		lost[j]++
		why[j] = v.forJob
	}
	for j := range p.Jobs {
		if jp := &p.Jobs[j]; lost[j] > 0 && jp.Gang && jp.Bound-lost[j] < jp.Min {
			for _, pod := range jp.BoundPods {
				add(pod, why[j])
			}
		}
	}
	return out
}

// evict asks the API server to evict the pod through the Eviction
// subresource, so PodDisruptionBudgets are honoured, with the configured
// grace period for checkpointing. A pod is asked once: until it is gone it
// counts as draining (Build), and the core never picks a draining pod.
// The UID precondition keeps a re-created pod of the same name safe. A
// refusal by a PodDisruptionBudget is a TooManyRequests error.
func (s *Scheduler) evict(ctx context.Context, e Evict) error {
	p := e.Pod
	if s.inFlight.Evicted[p.UID] {
		return nil
	}
	grace := int64(s.cfg.PreemptionGrace / time.Second)
	uid := p.UID
	ev := &policyv1.Eviction{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
		DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: &grace,
			Preconditions: &metav1.Preconditions{UID: &uid}},
	}
	// What EvictV1 sends, but without client-go's retries: a disruption
	// budget's refusal comes with Retry-After 10s, and ten retries would
	// stall the pass for over a minute. The next pass tries again.
	err := s.client.CoreV1().RESTClient().Post().Namespace(p.Namespace).Resource("pods").Name(p.Name).
		SubResource("eviction").Body(ev).MaxRetries(0).Do(ctx).Error()
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone already, or replaced by a new pod of the name
	}
	if err != nil {
		return fmt.Errorf("evict pod %s for %s: %w", podKey(p), e.For, err)
	}
	s.inFlight.Evicted[p.UID] = true
	s.log.Info("evicted", "pod", podKey(p), "for", e.For, "grace", s.cfg.PreemptionGrace)
	return s.record(ctx, p, "Preempted", v1.EventTypeNormal,
		fmt.Sprintf("%spreempted for %s; evicted with %v to checkpoint", messagePrefix, e.For, s.cfg.PreemptionGrace))
}
