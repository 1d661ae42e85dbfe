package api

import (
	"encoding/json"
	"testing"
)

// TestPlacementJSON: the registration reply keeps its placement fields at
// its top level, as agents older than the sync reply's placement read
// them, while the sync reply nests them under placement, absent when the
// master has nothing new to say; placement generations are absent
// where zero, the registration reply's and sync reply's from masters
// older than them, the sync's from agents older than them or whose master
// is.
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
		{"registration reply with a generation", RegisterReply{SyncWaitS: 30, NodePlacement: NodePlacement{Pool: "training"}, PlacementGen: 4},
			`{"sync_wait_s":30,"commands":null,"pool":"training","placement_gen":4}`},
		{"sync reply with a generation", SyncReply{Acked: 3, PlacementGen: 5}, `{"acked":3,"commands":null,"placement_gen":5}`},
		// A master older than placement_gen refuses it as unknown: an
		// agent told no generation sends none.
		{"sync without a generation", Sync{WaitS: 30}, `{"reports":null,"running":null,"wait_s":30}`},
		{"sync acknowledging one", Sync{WaitS: 30, PlacementGen: 5}, `{"reports":null,"running":null,"wait_s":30,"placement_gen":5}`},
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
