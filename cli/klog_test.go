package cli

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// TestKlogForwards checks that client-go's klog lines reach the logger
// the Kubernetes commands choose, with klog's own attributes.
func TestKlogForwards(t *testing.T) {
	var buf bytes.Buffer
	klogTo(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { klogTo(nil) })
	klog.Background().WithValues("lease", "l1").Info("became leader")
	klog.Flush()
	out := buf.String()
	for _, want := range []string{"became leader", "lease=l1"} {
		if !strings.Contains(out, want) {
			t.Errorf("klog line %q lacks %q", out, want)
		}
	}
}
