package k8s

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ReasonUnschedulable is the PodScheduled condition's reason for a pod
// Allot keeps waiting, the reason kube-scheduler uses, so tools that look
// for it keep working.
const ReasonUnschedulable = v1.PodReasonUnschedulable

// messagePrefix marks condition messages and events as Allot's.
const messagePrefix = "allot: "

// reportingController names Allot in its events.
const reportingController = "allot.dev/k8s-scheduler"

// bind posts the pod's binding and remembers it until the informer shows
// it. A pod that is already bound (a conflict) needs nothing more.
func (s *Scheduler) bind(ctx context.Context, b Bind) error {
	binding := &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: b.Pod.Name, Namespace: b.Pod.Namespace, UID: b.Pod.UID},
		Target:     v1.ObjectReference{Kind: "Node", Name: b.Node},
	}
	err := s.client.CoreV1().Pods(b.Pod.Namespace).Bind(ctx, binding, metav1.CreateOptions{})
	if apierrors.IsConflict(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bind pod %s to node %s: %w", podKey(b.Pod), b.Node, err)
	}
	s.inFlight.Bound[b.Pod.UID] = b.Node
	s.log.Info("bound", "pod", podKey(b.Pod), "node", b.Node)
	return s.record(ctx, b.Pod, "Scheduled", v1.EventTypeNormal,
		fmt.Sprintf("%sbound %s to %s", messagePrefix, podKey(b.Pod), b.Node))
}

// explain sets PodScheduled=False with Allot's reason on a waiting pod and
// records a FailedScheduling event, only when the message changed, so a
// pod waiting for hours causes no stream of writes.
func (s *Scheduler) explain(ctx context.Context, w Wait) error {
	msg := messagePrefix + w.Message
	if current(w.Pod) == msg {
		return nil
	}
	if err := s.setCondition(ctx, w.Pod, msg); err != nil {
		return err
	}
	return s.record(ctx, w.Pod, "FailedScheduling", v1.EventTypeWarning, msg)
}

// current is the message of the pod's PodScheduled=False condition.
func current(p *v1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == ReasonUnschedulable {
			return c.Message
		}
	}
	return ""
}

func (s *Scheduler) setCondition(ctx context.Context, p *v1.Pod, msg string) error {
	// A strategic merge patch merges conditions by type, so the kubelet's
	// and others' conditions stay as they are.
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []v1.PodCondition{{
		Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: ReasonUnschedulable,
		Message: msg, LastTransitionTime: metav1.Now(),
	}}}})
	if err != nil {
		return fmt.Errorf("condition patch for %s: %w", podKey(p), err)
	}
	_, err = s.client.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("set PodScheduled on %s: %w", podKey(p), err)
	}
	return nil
}

// record writes an event about the pod.
func (s *Scheduler) record(ctx context.Context, p *v1.Pod, reason, typ, msg string) error {
	now := metav1.NewTime(time.Now())
	ev := &v1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: p.Name + ".", Namespace: p.Namespace},
		InvolvedObject: v1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: p.Namespace,
			Name: p.Name, UID: p.UID, ResourceVersion: p.ResourceVersion},
		Reason: reason, Message: msg, Type: typ,
		Source: v1.EventSource{Component: s.cfg.SchedulerName},
		// The replica that wrote it: with leader election, which one led.
		ReportingController: reportingController, ReportingInstance: s.cfg.Leader.Identity,
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	if _, err := s.client.CoreV1().Events(p.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("event for %s: %w", podKey(p), err)
	}
	return nil
}
