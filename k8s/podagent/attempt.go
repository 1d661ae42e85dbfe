package podagent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/backstop"
)

// attempt is one part of an attempt that runs here as a pod. Guarded by
// the Agent's mu.
type attempt struct {
	key  partKey
	pod  string
	stop string // "", api.CommandPreempt or api.CommandKill: what the master asked
	// limited is the note of a kill the backend made at the attempt's
	// time limit, the master not having stopped it (timelimit.go); "".
	limited string
	// logs is closed when the pod's log stream has ended and its lines
	// are delivered; nil until the stream starts.
	logs chan struct{}
	// recheck looks at a pod that has not started again once its start
	// timeout is up; nil when none is set.
	recheck *time.Timer
	ending  bool  // the pod ended; its exit report is being made
	queued  bool  // the exit report is queued: no longer running
	exitSeq int64 // the exit report's Seq, once queued
}

// maxFinished bounds the memory of ended parts kept to recognise a
// repeated start.
const maxFinished = 10_000

// execute carries out the master's commands for a node. Like agentd's,
// every command is idempotent: a start of a part that runs or ran is
// ignored, a stop of one that ended needs nothing.
func (a *Agent) execute(ctx context.Context, l *link, cmds []api.Command) {
	l.execMu.Lock()
	defer l.execMu.Unlock()
	for _, c := range cmds {
		switch c.Type {
		case api.CommandStart:
			a.start(ctx, l, c)
		case api.CommandPreempt, api.CommandKill:
			a.stopPart(ctx, l, c)
		default:
			a.log.Error("unknown command from the master; ignored", "node", l.name, "type", c.Type)
		}
	}
}

// start creates the part's pod, or adopts it when a previous process (or
// a repeated command) made it already.
func (a *Agent) start(ctx context.Context, l *link, c api.Command) {
	if c.Start == nil {
		a.failStart(l, c.Task, "start command without a task spec")
		return
	}
	spec := *c.Start
	key := partKey{node: l.name, id: spec.ID()}
	a.mu.Lock()
	_, running := a.atts[key]
	done := a.finished[key]
	a.mu.Unlock()
	if running || done {
		return
	}
	pod, err := buildPod(spec, l.name, a.cfg.Namespace, a.cfg.Image)
	if err != nil {
		a.failStart(l, key.id, err.Error())
		return
	}
	if why := a.placementMisfit(pod, l.name); why != "" {
		a.failStart(l, key.id, why)
		return
	}
	made, err := a.cs.CoreV1().Pods(a.cfg.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		made, err = a.cs.CoreV1().Pods(a.cfg.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	}
	if err != nil {
		a.failStart(l, key.id, fmt.Sprintf("create pod %s/%s: %v", a.cfg.Namespace, pod.Name, err))
		return
	}
	a.log.Info("pod created", "node", l.name, "task", key.id.String(), "pod", made.Name)
	a.adopt(ctx, made)
}

// failStart reports a part that could not start as failed, with why.
func (a *Agent) failStart(l *link, id agent.TaskID, why string) {
	a.log.Error("cannot start the attempt", "node", l.name, "task", id.String(), "err", why)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rememberLocked(partKey{node: l.name, id: id})
	l.enqueueLocked(api.Report{Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeFailed), Error: why})
}

// adopt takes on a pod of the backend: one it just made, or one found
// after a restart. It is reported running, and followed from there.
func (a *Agent) adopt(ctx context.Context, p *v1.Pod) {
	node, id, ok := partOf(p)
	if !ok {
		return
	}
	key := partKey{node: node, id: id}
	a.mu.Lock()
	if a.atts[key] != nil || a.finished[key] {
		linked := a.links[node] != nil
		a.mu.Unlock()
		if linked {
			a.observe(ctx, p)
		}
		return
	}
	att := &attempt{key: key, pod: p.Name}
	if stop := p.Annotations[AnnotationStop]; stop == api.CommandPreempt || stop == api.CommandKill {
		// A stop asked before a restart ends as it would have.
		att.stop = stop
		if stop == api.CommandKill {
			att.limited = p.Annotations[AnnotationLimited]
		}
	}
	a.atts[key] = att
	l := a.links[node]
	if l != nil {
		l.enqueueLocked(api.Report{Task: id, Event: api.EventRunning})
	}
	a.mu.Unlock()
	// Without a link (at start-up, before the nodes) the pod is only
	// listed; reobserve follows it once its node registers.
	if l != nil {
		a.observe(ctx, p)
	}
}

// reobserve follows the pods of a node whose link has just started.
func (a *Agent) reobserve(ctx context.Context, node string) {
	pods, err := a.pods.List(labels.SelectorFromSet(labels.Set{LabelNode: node}))
	if err != nil {
		a.log.Warn("cannot list the node's pods", "node", node, "err", err)
		return
	}
	for _, p := range pods {
		a.observe(ctx, p)
	}
}

func (a *Agent) podChanged(ctx context.Context, o any) {
	if p, ok := o.(*v1.Pod); ok {
		a.adopt(ctx, p)
	}
}

// observe follows a pod's phase: once its containers run, its logs are
// streamed; once it ends, its exit is reported.
func (a *Agent) observe(ctx context.Context, p *v1.Pod) {
	node, id, _ := partOf(p)
	a.mu.Lock()
	att := a.atts[partKey{node: node, id: id}]
	if att == nil || att.ending {
		a.mu.Unlock()
		return
	}
	if att.logs == nil && started(p) {
		att.logs = make(chan struct{})
		a.wg.Add(1)
		go a.follow(ctx, node, id, p, att.logs)
	}
	a.mu.Unlock()
	rep, ended := podExit(p)
	if !ended {
		why := stuck(p)
		if why == "" {
			why = a.startOverdue(ctx, att, p)
		}
		if why == "" {
			return
		}
		// The pod's own end: it is deleted once the master has the report.
		rep = api.Report{Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeFailed), Error: why}
	}
	a.finish(att, rep)
}

// startOverdue says why a pod that has not started after StartTimeout
// will not be waited for any longer, or "". A pod waits for an image
// pull back-off, a volume or a kubelet that may get over it, so such
// waits are not failures at once; but the attempt holds its GPUs in the
// master meanwhile, and the kubelet never gives up. The clock is the
// pod's creation, which a restarted backend reads back from the pod; a
// timer looks again once it is up, as a stuck pod may change no more.
func (a *Agent) startOverdue(ctx context.Context, att *attempt, p *v1.Pod) string {
	if p.Status.Phase != v1.PodPending || started(p) {
		return ""
	}
	left := a.cfg.StartTimeout - time.Since(p.CreationTimestamp.Time)
	if left <= 0 {
		return fmt.Sprintf("the pod did not start within %v (--start-timeout): %s", a.cfg.StartTimeout, pendingReason(p))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if att.recheck == nil {
		ns, name := p.Namespace, p.Name
		att.recheck = time.AfterFunc(left+time.Second, func() {
			a.mu.Lock()
			att.recheck = nil
			a.mu.Unlock()
			if ctx.Err() != nil {
				return
			}
			if cur, err := a.pods.Pods(ns).Get(name); err == nil {
				a.observe(ctx, cur)
			}
		})
	}
	return ""
}

// pendingReason is what a pod that has not started waits for: a
// container's waiting reason (ImagePullBackOff and its message), else a
// false condition's, else the pod's phase.
func pendingReason(p *v1.Pod) string {
	for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return strings.TrimSpace(fmt.Sprintf("container %s is waiting: %s: %s", cs.Name, w.Reason, w.Message))
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Status == v1.ConditionFalse && c.Reason != "" {
			return strings.TrimSpace(fmt.Sprintf("%s is False: %s: %s", c.Type, c.Reason, c.Message))
		}
	}
	return "it is still Pending (no kubelet has reported on it)"
}

// stuckReasons are the kubelet's reasons for a container that waits and
// will never start without a new pod: the pod_spec or its references
// are wrong. (An image pull back-off may be transient, so it waits.)
var stuckReasons = map[string]bool{
	"InvalidImageName": true, "ErrImageNeverPull": true,
	"CreateContainerConfigError": true, "CreateContainerError": true,
}

// stuck says why a pending pod will never run, or "".
func stuck(p *v1.Pod) string {
	if p.Status.Phase != v1.PodPending {
		return ""
	}
	for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil && stuckReasons[w.Reason] {
			return strings.TrimSpace(fmt.Sprintf("container %s cannot start: %s: %s", cs.Name, w.Reason, w.Message))
		}
	}
	return ""
}

// podDeleted ends a part whose pod went away: as Allot asked (preempt,
// kill), or as someone else did.
func (a *Agent) podDeleted(o any) {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	p, ok := o.(*v1.Pod)
	if !ok {
		return
	}
	node, id, ok := partOf(p)
	if !ok {
		return
	}
	a.mu.Lock()
	att := a.atts[partKey{node: node, id: id}]
	a.mu.Unlock()
	if att == nil {
		return
	}
	rep, ended := podExit(p)
	if !ended {
		rep = api.Report{Task: id, Event: api.EventExited, Outcome: string(agent.OutcomeFailed),
			Error: "the pod was deleted before it ended, not by Allot"}
	}
	a.finish(att, rep)
}

// started reports whether the pod's containers have run, so that it has
// output to read.
func started(p *v1.Pod) bool {
	if p.Status.Phase == v1.PodRunning || p.Status.Phase == v1.PodSucceeded {
		return true
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Running != nil || (cs.State.Terminated != nil && !cs.State.Terminated.StartedAt.IsZero()) {
			return true
		}
	}
	return false
}

// podExit says how an ended pod ended: the main container's exit code,
// and the pod's or the container's reason when they say more than the
// code (Evicted, OOMKilled, DeadlineExceeded).
func podExit(p *v1.Pod) (api.Report, bool) {
	_, id, _ := partOf(p)
	var outcome agent.Outcome
	switch p.Status.Phase {
	case v1.PodSucceeded:
		outcome = agent.OutcomeCompleted
	case v1.PodFailed:
		outcome = agent.OutcomeFailed
	default:
		return api.Report{}, false
	}
	r := api.Report{Task: id, Event: api.EventExited, Outcome: string(outcome), At: time.Now().UTC()}
	var notes []string
	if p.Status.Reason != "" || p.Status.Message != "" {
		notes = append(notes, strings.TrimSpace("pod "+p.Status.Reason+": "+p.Status.Message))
	}
	main := mainName(p)
	for _, cs := range p.Status.ContainerStatuses {
		t := cs.State.Terminated
		if cs.Name != main || t == nil {
			continue
		}
		code := int(t.ExitCode)
		r.ExitCode = &code
		if !t.FinishedAt.IsZero() {
			r.At = t.FinishedAt.UTC()
		}
		if t.Reason != "" && t.Reason != "Completed" && t.Reason != "Error" {
			notes = append(notes, "container "+t.Reason)
		}
	}
	if r.ExitCode == nil && outcome == agent.OutcomeCompleted {
		code := 0
		r.ExitCode = &code
	}
	r.Error = strings.Join(notes, "; ")
	return r, true
}

// finish reports a part's end once: after its logs are delivered (or
// LogWait passed), so that the master has the logs when it closes the
// attempt. A stop Allot asked for makes the outcome preempted or killed,
// whatever the exit code, as the process agent reports it.
func (a *Agent) finish(att *attempt, rep api.Report) {
	a.mu.Lock()
	if att.ending {
		a.mu.Unlock()
		return
	}
	att.ending = true
	switch att.stop {
	case api.CommandPreempt:
		rep.Outcome = string(agent.OutcomePreempted)
	case api.CommandKill:
		rep.Outcome = string(agent.OutcomeKilled)
		backstop.Mark(&rep, att.limited)
	}
	logs := att.logs
	a.wg.Add(1)
	a.mu.Unlock()
	go func() {
		defer a.wg.Done()
		if logs != nil {
			select {
			case <-logs:
			case <-time.After(a.cfg.LogWait):
				rep.Error = strings.TrimLeft(rep.Error+"; the pod's log stream did not end in time", "; ")
			}
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		att.queued = true
		a.rememberLocked(att.key)
		l := a.links[att.key.node]
		if l == nil {
			// Unregistered: the master ends the attempt as lost.
			delete(a.atts, att.key)
			return
		}
		l.enqueueLocked(rep)
		att.exitSeq = l.seq
		code := "none"
		if rep.ExitCode != nil {
			code = fmt.Sprint(*rep.ExitCode)
		}
		a.log.Info("pod ended", "node", att.key.node, "task", att.key.id.String(), "outcome", rep.Outcome, "exit_code", code)
	}()
}

// acked deletes the pods whose exit reports the master has stored: their
// story is told, and a pod left behind would be adopted again after a
// restart.
func (a *Agent) acked(l *link, seq int64) {
	a.mu.Lock()
	var gone []*attempt
	for k, att := range a.atts {
		if k.node == l.name && att.queued && att.exitSeq > 0 && att.exitSeq <= seq {
			gone = append(gone, att)
			delete(a.atts, k)
		}
	}
	a.mu.Unlock()
	for _, att := range gone {
		ctx, cancel := context.WithTimeout(context.Background(), a.cfg.RequestTimeout)
		err := a.cs.CoreV1().Pods(a.cfg.Namespace).Delete(ctx, att.pod, metav1.DeleteOptions{})
		cancel()
		if err != nil && !apierrors.IsNotFound(err) {
			a.log.Warn("cannot delete an ended pod", "pod", att.pod, "err", err)
		}
	}
}

// stopPart turns a preempt or kill into a graceful delete of the pod: the
// kubelet sends SIGTERM, which is the checkpoint request, and SIGKILL
// once the grace is over. A preempt gets the master's grace, a kill the
// pod's own terminationGracePeriodSeconds (the job's pod_spec's, else the
// pool's kill_grace, which buildPod sets; a kill command's GraceS is the
// same kill_grace, or 0 for a stray attempt, which gets the pod's grace
// too): a force delete would only drop the API object and leave the
// containers running.
func (a *Agent) stopPart(ctx context.Context, l *link, c api.Command) {
	key := partKey{node: l.name, id: c.Task}
	a.mu.Lock()
	att := a.atts[key]
	done := a.finished[key]
	if att == nil {
		if !done {
			a.rememberLocked(key)
			l.enqueueLocked(api.Report{Task: c.Task, Event: api.EventExited, Outcome: string(agent.OutcomeKilled),
				Error: "the attempt is not running on this node"})
		}
		a.mu.Unlock()
		return
	}
	if att.ending || att.stop != "" {
		a.mu.Unlock()
		return
	}
	att.stop = c.Type
	name := att.pod
	a.mu.Unlock()
	opt := metav1.DeleteOptions{}
	if c.Type == api.CommandPreempt {
		grace := max(c.GraceS, 0)
		opt.GracePeriodSeconds = &grace
	}
	err := a.deletePod(ctx, name, map[string]string{AnnotationStop: c.Type}, opt)
	switch {
	case apierrors.IsNotFound(err):
		// Gone already; the informer's delete reports it.
	case err != nil:
		// The master repeats an unanswered stop; let the next one try.
		a.mu.Lock()
		att.stop = ""
		a.mu.Unlock()
		a.log.Warn("cannot delete the pod to stop the attempt", "pod", name, "command", c.Type, "err", err)
	case opt.GracePeriodSeconds != nil:
		a.log.Info("stopping pod", "pod", name, "command", c.Type, "grace_s", *opt.GracePeriodSeconds)
	default:
		a.log.Info("stopping pod with its own termination grace period", "pod", name, "command", c.Type)
	}
}

// deletePod deletes a pod to stop its attempt, after marking it with
// notes (annotations), so that a process adopting the pod after a restart
// reports the end as the stop asked, not as failed.
func (a *Agent) deletePod(ctx context.Context, name string, notes map[string]string, opt metav1.DeleteOptions) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": notes}})
	if err != nil {
		return err
	}
	_, err = a.cs.CoreV1().Pods(a.cfg.Namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err == nil {
		err = a.cs.CoreV1().Pods(a.cfg.Namespace).Delete(ctx, name, opt)
	}
	return err
}

// rememberLocked records a part as ended; a.mu held.
func (a *Agent) rememberLocked(k partKey) {
	if a.finished[k] {
		return
	}
	a.finished[k] = true
	a.finOrder = append(a.finOrder, k)
	if len(a.finOrder) > maxFinished {
		delete(a.finished, a.finOrder[0])
		a.finOrder = a.finOrder[1:]
	}
}
