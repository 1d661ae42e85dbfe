package localapi

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Environment variables naming the server binaries.
const (
	EnvAPIServer = "ALLOT_TEST_KUBE_APISERVER"
	EnvEtcd      = "ALLOT_TEST_ETCD"
)

// how tells how to get each binary, for the error when one is missing.
var how = map[string]string{
	"kube-apiserver": "run scripts/k8s-test-bins, which builds it from k8s.io/kubernetes into ~/.cache/allot-k8s/bin",
	"etcd":           "apt-get install -y etcd-server, or run scripts/k8s-test-bins",
}

// cacheBin is where scripts/k8s-test-bins installs the binaries.
func cacheBin() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "allot-k8s", "bin")
	}
	return ""
}

// find looks for a binary in the environment variable env, then in
// scripts/k8s-test-bins' cache, then in PATH.
func find(env, name string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", fmt.Errorf("%s=%s: not an executable file", env, p)
		}
		return p, nil
	}
	if d := cacheBin(); d != "" {
		if p := filepath.Join(d, name); isExec(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if errors.Is(err, exec.ErrNotFound) {
		return "", fmt.Errorf("%s not found in $%s, %s or PATH: %s", name, env, cacheBin(), how[name])
	}
	if err != nil {
		return "", fmt.Errorf("look for %s: %w", name, err)
	}
	return p, nil
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
