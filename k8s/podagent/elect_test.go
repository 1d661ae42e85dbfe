package podagent_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/allot-sched/allot/k8s"
	"github.com/allot-sched/allot/k8s/podagent"
)

// replica runs an elected backend whose registrations carry version, and
// returns a function that stops it and waits for it.
func (e *env) replica(version string) (stop func()) {
	e.t.Helper()
	cfg := podagent.Config{Master: e.url, JoinToken: e.join, Namespace: e.ns, Version: version,
		NodeSelector: "allot-test=" + e.ns, Logs: e.logs, LogWait: 5 * time.Second,
		Logger: slog.New(slog.NewTextHandler(testWriter{e.t}, &slog.HandlerOptions{Level: slog.LevelInfo})).With("replica", version)}
	le := k8s.DefaultLeaderElection()
	le.Namespace, le.Name, le.Identity = e.ns, "agent", version
	// A short retry period so that the other replica takes a released
	// Lease at once; the Lease and renew deadline stay long, so that a
	// busy machine does not make the leader lose it mid-test.
	le.RetryPeriod = 200 * time.Millisecond
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := podagent.RunElected(ctx, e.cs, cfg, le); err != nil {
			e.t.Errorf("replica %s: %v", version, err)
		}
	}()
	stop = func() {
		cancel()
		<-done
	}
	e.t.Cleanup(stop)
	return stop
}

// registeredBy is the version the node last registered with.
func (e *env) registeredBy() string {
	nodes, err := e.cl.Nodes(e.ctx)
	if err != nil {
		return ""
	}
	for _, n := range nodes {
		if n.Name == e.node {
			return n.Version
		}
	}
	return ""
}

// TestLeaderElection: of two replicas only the Lease holder serves the
// master; when it stops, the other takes over and adopts its pods.
func TestLeaderElection(t *testing.T) {
	e := setupEnv(t, "elect")
	stopA := e.replica("replica-a")
	e.waitFor("replica a to register the node", func() bool { return e.registeredBy() == "replica-a" })
	e.replica("replica-b")
	id := e.submit(podSpec)
	pod := e.pod(id)
	e.setStatus(pod, v1.PodRunning, 0)
	e.jobState(id, "running")
	if by := e.registeredBy(); by != "replica-a" {
		t.Fatalf("the node registered by %q while replica a leads", by)
	}
	stopA()
	e.waitFor("replica b to take over", func() bool { return e.registeredBy() == "replica-b" })
	e.setStatus(pod, v1.PodSucceeded, 0)
	e.jobState(id, "completed")
}
