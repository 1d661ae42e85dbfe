package cli

import (
	"strings"
	"testing"
)

func TestK8sAgentFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing kubeconfig", []string{"--master", "http://127.0.0.1:1", "--kubeconfig", "/nonexistent/kubeconfig"}, "kubernetes client configuration"},
		{"missing join token file", []string{"--master", "http://127.0.0.1:1", "--join-token-file", "/nonexistent/token"}, "--join-token-file"},
		{"bad log level", []string{"--log-level", "loud"}, "loud"},
		{"bad start timeout", []string{"--start-timeout", "soon"}, "start-timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, append([]string{"k8s-agent"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
