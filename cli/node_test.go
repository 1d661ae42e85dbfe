package cli

import "testing"

func TestNodeAdmin(t *testing.T) {
	fixClock(t)
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "drain", args: []string{"node", "drain", "dgx-1", "--reason", "new PSU"},
			out: `NAME   POOL      STATE        GPU   SLOTS  LABELS             LAST SEEN  REASON
dgx-1  research  up,draining  h100  8/8    rack=r1,switch=s1  5s         new PSU
`},
		{name: "drain json", args: []string{"node", "drain", "dgx-2", "--reason", "bad fan", "-o", "json"},
			out: `{
  "name": "dgx-2",
  "pool": "research",
  "state": "lost",
  "gpu_type": "h100",
  "slots": 8,
  "used": 0,
  "gpus": null,
  "registered_at": "0001-01-01T00:00:00Z",
  "heartbeat_at": "2024-05-01T07:00:00Z",
  "drain": "drained",
  "drain_reason": "bad fan",
  "drained_by": "root",
  "drained_at": "2024-05-01T10:00:00Z"
}
`},
		{name: "drain without a reason", args: []string{"node", "drain", "dgx-1"}, err: "--reason: say why"},
		{name: "drain an unknown node", args: []string{"node", "drain", "dgx-9", "--reason", "x"}, err: `404 Not Found: node "dgx-9": no such node`},
		{name: "resume yaml", args: []string{"node", "resume", "dgx-2", "-o", "yaml"}, out: `name: dgx-2
pool: research
state: lost
gpu_type: h100
slots: 8
used: 0
gpus: null
registered_at: "0001-01-01T00:00:00Z"
heartbeat_at: "2024-05-01T07:00:00Z"
`},
		{name: "delete a busy node", args: []string{"node", "delete", "dgx-1"}, err: "runs 2 tasks (3/0, 3/1)"},
		{name: "delete", args: []string{"node", "delete", "dgx-2"}, out: "Deleted node dgx-2\n"},
		{name: "no name", args: []string{"node", "resume"}, err: "allot node resume: expected a node name (allot node resume NAME)"},
	})
}
