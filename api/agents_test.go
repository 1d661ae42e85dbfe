package api

import (
	"encoding/json"
	"testing"
)

// TestPlacementJSON: the registration reply keeps its placement fields at
// its top level, as agents older than the sync reply's placement read
// them, while the sync reply nests them under placement, absent when the
// master has nothing new to say.
func TestPlacementJSON(t *testing.T) {
	p := NodePlacement{Pool: "research", PoolByRule: true, Labels: map[string]string{"tier": "a"}}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"registration reply", RegisterReply{SyncWaitS: 30, NodePlacement: p},
			`{"sync_wait_s":30,"commands":null,"pool":"research","pool_by_rule":true,"labels":{"tier":"a"}}`},
		{"sync reply with a placement", SyncReply{Acked: 3, Placement: &p},
			`{"acked":3,"commands":null,"placement":{"pool":"research","pool_by_rule":true,"labels":{"tier":"a"}}}`},
		{"sync reply without", SyncReply{Acked: 3}, `{"acked":3,"commands":null}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("JSON %s, want %s", got, tc.want)
			}
		})
	}
}
