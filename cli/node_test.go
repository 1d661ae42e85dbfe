package cli

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

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
		{name: "delete --revoke", args: []string{"node", "delete", "--revoke", "dgx-2"},
			out: "Deleted node dgx-2\nRevoked its credential (token 11): should its agent start again, it is refused.\n"},
		{name: "no name", args: []string{"node", "resume"}, err: "allot node resume: expected a node name (allot node resume NAME)"},
	})
}

// TestDeletedNodeWords: the master's note follows the deletion; a
// --revoke that a master from before it answered without a word is
// not taken as done.
func TestDeletedNodeWords(t *testing.T) {
	cases := []struct {
		name   string
		d      api.DeletedNode
		revoke bool
		want   string
	}{
		{"nothing to say", api.DeletedNode{Name: "c1"}, false, "Deleted node c1"},
		{"an alive agent", api.DeletedNode{Name: "c1", Note: "Its agent (heard 3s ago) registers again"}, false,
			"Deleted node c1\nIts agent (heard 3s ago) registers again"},
		{"revoke on an old master", api.DeletedNode{Name: "c1"}, true,
			"Deleted node c1\nThe master did not say that it revoked the node's credential"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := deletedNodeWords(tc.d, tc.revoke); !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got %q, want it to start %q", got, tc.want)
			}
		})
	}
}
