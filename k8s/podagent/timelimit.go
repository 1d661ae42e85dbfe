package podagent

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/allot-sched/allot/api"
)

// The time limits' backstop, as agentd's (package backstop): the master
// kills an attempt at its job's hard time limit, but one whose store is
// unavailable, or that is out of reach, does not, and the pod would run
// on (and be charged) for the outage's length. Each reply lists the
// node's deadlines; an attempt whose deadline passed Config.LimitSlack
// ago and that nothing has stopped is killed as the master's time-limit
// kill would (a graceful delete with the pod's own grace, which is the
// pool's kill_grace unless the pod_spec sets one), marked on the pod
// (AnnotationLimited) so that a restarted backend reports it alike, and
// its exit report says so (api.Report.StoppedAtLimit) for the master to
// end it as its own kill does.

// limitRetry is how soon a kill that failed is tried again.
const limitRetry = time.Second

// heardLimitsLocked records the time limits of the reply just received;
// registration says it answered a registration. a.mu held.
func (l *link) heardLimitsLocked(ls []api.TimeLimit, registration bool) {
	if !l.limits.Heard(time.Now(), ls, registration) {
		return
	}
	select {
	case l.limitsHeard <- struct{}{}:
	default:
	}
}

// limitLoop kills the node's attempts past their time limits that the
// master has not stopped, until ctx ends.
func (l *link) limitLoop(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		due, next := l.dueLimits(time.Now())
		for _, att := range due {
			if !l.a.limitStop(ctx, att) {
				next = time.Now().Add(limitRetry)
			}
		}
		wait := time.Hour
		if !next.IsZero() {
			wait = max(time.Until(next), 0)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-l.limitsHeard:
		case <-timer.C:
		}
	}
}

// dueLimits marks and returns the node's attempts whose limit passed the
// slack before now and that nothing else stops (the master's preempt or
// kill, an end), and when the next one is due (zero for none).
func (l *link) dueLimits(now time.Time) (due []*attempt, next time.Time) {
	slack := l.a.cfg.LimitSlack
	l.a.mu.Lock()
	defer l.a.mu.Unlock()
	for k, att := range l.a.atts {
		if k.node != l.name || att.ending || att.stop != "" {
			continue
		}
		d, ok := l.limits.Of(k.id)
		if !ok {
			continue
		}
		if fire := d.Fire(slack); now.Before(fire) {
			if next.IsZero() || fire.Before(next) {
				next = fire
			}
			continue
		}
		// The master's kill, should it come, is a repeat.
		att.stop, att.limited = api.CommandKill, d.Note(slack)
		due = append(due, att)
	}
	return due, next
}

// limitStop kills an attempt at its time limit as the master's kill
// does; false when the pod could not be deleted (tried again later).
func (a *Agent) limitStop(ctx context.Context, att *attempt) bool {
	a.mu.Lock()
	name, note := att.pod, att.limited
	a.mu.Unlock()
	err := a.deletePod(ctx, name, map[string]string{AnnotationStop: api.CommandKill, AnnotationLimited: note}, metav1.DeleteOptions{})
	switch {
	case err == nil:
		a.log.Warn("time limit: stopping the pod, as the master has not", "pod", name, "why", note)
	case apierrors.IsNotFound(err):
		// Gone already; the informer's delete reports it.
	default:
		a.mu.Lock()
		if !att.ending {
			att.stop, att.limited = "", ""
		}
		a.mu.Unlock()
		a.log.Warn("time limit: cannot delete the pod", "pod", name, "err", err)
		return false
	}
	return true
}
