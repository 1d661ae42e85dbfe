package k8stest

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/allot-sched/allot/k8s/localapi"
	"k8s.io/client-go/rest"
)

// Server is a running etcd and kube-apiserver (localapi.Server).
type Server = localapi.Server

// Environment variables naming the server binaries.
const (
	EnvAPIServer = localapi.EnvAPIServer
	EnvEtcd      = localapi.EnvEtcd
)

var shared struct {
	inMain atomic.Bool
	once   sync.Once
	srv    *Server
	err    error
}

// Main runs the tests and then stops the shared servers, if they were
// started. Call it from TestMain: os.Exit(k8stest.Main(m)).
func Main(m *testing.M) int {
	shared.inMain.Store(true)
	code := m.Run()
	if shared.srv != nil {
		if err := shared.srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "k8stest: %v\n", err)
		}
	}
	return code
}

// Config returns an admin client configuration for the shared API server,
// starting it on first use. It fails the test when it cannot run.
func Config(t testing.TB) *rest.Config {
	t.Helper()
	if !shared.inMain.Load() {
		t.Fatal("k8stest.Config: the package's TestMain must call k8stest.Main(m), which stops the shared servers")
	}
	shared.once.Do(func() { shared.srv, shared.err = localapi.Start() })
	if shared.err != nil {
		t.Fatalf("k8stest: cannot start kube-apiserver for the tests: %v", shared.err)
	}
	return rest.CopyConfig(shared.srv.Config)
}
