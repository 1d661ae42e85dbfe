package cli

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
)

// TestK8sDevPorts: allot k8s-dev's port flags refuse a port out of range,
// one given twice and one in use, naming the flag, before anything
// starts (no kube-apiserver is needed to see it).
func TestK8sDevPorts(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	tests := []struct {
		name  string
		args  []string
		err   string
		usage bool
	}{
		{"too high", []string{"--api-port", "70000"}, "--api-port 70000: expected a port from 1 to 65535, or 0 for any free one", true},
		{"negative", []string{"--etcd-port", "-1"}, "--etcd-port -1: expected a port from 1 to 65535, or 0 for any free one", true},
		{"not a number", []string{"--etcd-peer-port", "x"}, `--etcd-peer-port: expected a whole number, got "x"`, true},
		{"twice", []string{"--api-port", "40001", "--etcd-port", "40001"},
			"--etcd-port 40001: --api-port has the same port; expected different ones (0 for any free one)", true},
		{"in use", []string{"--api-port", port},
			"--api-port " + port + ": 127.0.0.1:" + port + " is in use (another allot k8s-dev, kube-apiserver or etcd?): stop that process, or pick another port with --api-port (0 for any free one)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := run(t, append([]string{"k8s-dev"}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one containing %q", err, tt.err)
			}
			var ue *usageError
			if got := errors.As(err, &ue); got != tt.usage {
				t.Errorf("usage error %v, want %v (%v)", got, tt.usage, err)
			}
		})
	}
}
