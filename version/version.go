package version

import (
	"runtime"
	"runtime/debug"
)

// Version is set by -ldflags "-X github.com/allot-sched/allot/version.Version=..."
// in release builds; empty means "read the build information".
var Version = ""

// Info describes the running build.
type Info struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"` // the VCS commit, when known
	Time     string `json:"time,omitempty"`     // the commit's time, RFC 3339
	Modified bool   `json:"modified,omitempty"` // the work tree had uncommitted changes
	Go       string `json:"go"`
}

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// Get returns the running build's description.
func Get() Info {
	info := Info{Version: Version, Go: runtime.Version()}
	bi, ok := readBuildInfo()
	if ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if info.Version != "" {
		return info
	}
	// "(devel)" is what the toolchain reports for a build from a work
	// tree; a `go install module@v1.2.0` reports the tag.
	if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		info.Version = bi.Main.Version
		return info
	}
	info.Version = "devel"
	if len(info.Revision) >= 12 {
		info.Version += "-" + info.Revision[:12]
	}
	if info.Modified {
		info.Version += "-dirty"
	}
	return info
}

// String returns the running build's version, e.g. "v1.2.0" or
// "devel-0123456789ab-dirty".
func String() string { return Get().Version }
