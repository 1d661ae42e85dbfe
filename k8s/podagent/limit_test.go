package podagent_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/allot-sched/allot/k8s/podagent"
)

// TestTimeLimitInStoreOutage: a job's time limit falls while the
// master's store refuses writes, so the master cannot kill it. The
// backend deletes its pod itself, its limit's slack after, marked as
// stopped at the limit; once the store is back the master ends the
// attempt killed by its time limit, applied by the node's agent.
func TestTimeLimitInStoreOutage(t *testing.T) {
	e := setupEnv(t, "limit")
	e.limitSlack = 300 * time.Millisecond
	e.startAgent()
	spec := `{"name": "train", "entrypoint": "python train.py", "resources": {"slots": 1, "time_limit": 3}, "pod_spec": ` + podSpec + `}`
	r, err := e.cl.Submit(e.ctx, json.RawMessage(spec))
	if err != nil {
		t.Fatal(err)
	}
	pod := e.pod(r.ID)
	e.setStatus(pod, v1.PodRunning, 0)
	e.jobState(r.ID, "running")
	e.flaky.Down.Store(true)

	var p *v1.Pod
	e.waitFor("the backend's delete of the pod", func() bool {
		p, err = e.cs.CoreV1().Pods(e.ns).Get(e.ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp != nil
	})
	if note := p.Annotations[podagent.AnnotationLimited]; !strings.Contains(note, "time limit of 3s") {
		t.Errorf("pod annotation %q = %q, want the limit's note", podagent.AnnotationLimited, note)
	}
	if p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds != 45 {
		t.Errorf("deletion grace = %v, want the pod's 45s, as the master's kill", p.DeletionGracePeriodSeconds)
	}
	zero := int64(0) // the kubelet stops the containers and removes the pod
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	e.flaky.Down.Store(false)
	j := e.jobState(r.ID, "killed")
	if len(j.TaskList) != 1 || !strings.Contains(j.TaskList[0].Reason, "applied at the limit by node "+e.node+"'s agent") {
		t.Fatalf("tasks %+v, want the limit applied by the node's agent", j.TaskList)
	}
}
