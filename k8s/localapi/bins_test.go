package localapi

import (
	"strings"
	"testing"
)

func TestMissingBinaryNamesTheFix(t *testing.T) {
	cases := []struct{ env, name, want string }{
		{EnvAPIServer, "kube-apiserver", "scripts/k8s-test-bins"},
		{EnvEtcd, "etcd", "etcd-server"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(c.env, "")
			t.Setenv("PATH", t.TempDir())
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			_, err := find(c.env, c.name)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.env) {
				t.Errorf("find(%s) = %v, want an error naming $%s and %q", c.name, err, c.env, c.want)
			}
		})
	}
}
