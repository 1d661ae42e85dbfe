package agent

import (
	"reflect"
	"testing"
)

func TestParseShimCommand(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		want ShimCommand
		ok   bool
	}{
		{name: "as the runner starts it",
			argv: []string{"/usr/bin/allot", ShimArg, ShimDrainArg, "2372", ShimOutputArg, "/w/jobs/20/0/.allot/out-1-0", "67108864",
				ShimFenceArg, "/w/fence.json", "20/0/1", "15", "/w/jobs/20/0/.allot/exit-1-0.json", "/bin/sh", "-c", "sleep 300"},
			want: ShimCommand{AgentPID: 2372, FenceFile: "/w/fence.json", Task: "20/0/1", ExitFile: "/w/jobs/20/0/.allot/exit-1-0.json"}, ok: true},
		{name: "no fence",
			argv: []string{"allot", ShimArg, ShimDrainArg, "7", "/x/exit.json", "/bin/sh", "-c", "true"},
			want: ShimCommand{AgentPID: 7, ExitFile: "/x/exit.json"}, ok: true},
		{name: "bare, as an older agent starts it",
			argv: []string{"allot", ShimArg, "/x/exit.json", "/bin/sh"},
			want: ShimCommand{ExitFile: "/x/exit.json"}, ok: true},
		{name: "not a shim", argv: []string{"allot", "agent", "--name", "n3"}},
		{name: "bad agent pid", argv: []string{"allot", ShimArg, ShimDrainArg, "x", "/x/exit.json", "/bin/sh"}},
		{name: "no program", argv: []string{"allot", ShimArg, "/x/exit.json"}},
		{name: "empty", argv: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseShimCommand(c.argv)
			if ok != c.ok || !reflect.DeepEqual(got, c.want) {
				t.Errorf("ParseShimCommand = %+v, %v; want %+v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
