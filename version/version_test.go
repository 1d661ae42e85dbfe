package version

import (
	"runtime/debug"
	"testing"
)

func TestGet(t *testing.T) {
	rev := "0123456789abcdef0123"
	tests := []struct {
		name    string
		ldflags string
		bi      *debug.BuildInfo
		want    string
	}{
		{"ldflags win", "v1.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v1.2.0"},
		{"module version of go install", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v0.9.0"},
		{"work tree build with revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}}}, "devel-0123456789ab"},
		{"dirty work tree", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}}, "devel-0123456789ab-dirty"},
		{"no build information", "", nil, "devel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldV, oldRead := Version, readBuildInfo
			t.Cleanup(func() { Version, readBuildInfo = oldV, oldRead })
			Version = tt.ldflags
			readBuildInfo = func() (*debug.BuildInfo, bool) { return tt.bi, tt.bi != nil }
			if got := String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if g := Get(); g.Go == "" {
				t.Error("Get().Go is empty")
			}
		})
	}
}
