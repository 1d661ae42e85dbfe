package cli

import (
	"fmt"
	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/k8s/k8stest"
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the tests away from the user's own credentials: allot
// dev and allot login write the file that ALLOT_CONFIG names. Agents get
// a join token unless a test takes it away.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == agent.ShimArg {
		os.Exit(agent.RunShim(os.Args[2:])) // the in-process agents' task shim
	}
	if len(os.Args) > 1 && (os.Args[1] == "master" || os.Args[1] == "dev") {
		// The master that allot bench live starts; the dev cluster of
		// TestDevInterrupts.
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "allot-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(ConfigEnv, filepath.Join(dir, "credentials.json"))
	os.Setenv(JoinTokenEnv, "allot_j_test")
	os.Unsetenv(TokenEnv)
	os.Unsetenv(MasterEnv)
	os.Unsetenv(CAEnv)
	// k8stest.Main runs the tests and stops the Kubernetes test servers if
	// a test started them (k8s_test.go).
	code := k8stest.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}
