package master

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/master/mastertest"
)

// TestSyncPlacementAck: an agent that acknowledges placements
// (api.Sync.PlacementGen) hears a reload's move in every sync reply
// until a sync acknowledges it, so a reply lost on the way (the master
// answered, the connection dropped) is made good by the next sync, at
// once even when that sync asks to be held; once acknowledged, the move
// is not sent again. An agent older than the field is told once, as
// before it: a reply lost with the move loses it until it registers.
func TestSyncPlacementAck(t *testing.T) {
	h, write := placementHarness(t)
	research := &api.NodePlacement{Pool: "research", PoolByRule: true}
	type step struct {
		drop  bool // the master's reply is lost
		waitS int
		want  *api.NodePlacement // when not dropped
	}
	cases := []struct {
		name  string
		ack   bool
		steps []step
	}{
		{"acknowledged: told once", true, []step{{want: research}, {}, {}}},
		{"a lost reply: the next sync repeats the move", true, []step{{drop: true}, {want: research}, {}}},
		{"two lost replies", true, []step{{drop: true}, {drop: true}, {want: research}, {}}},
		{"a lost reply: a held sync is answered at once", true, []step{{drop: true}, {waitS: 30, want: research}, {}}},
		{"an old agent: told once", false, []step{{want: research}, {}}},
		{"an old agent: a lost reply loses the move", false, []step{{drop: true}, {}}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("ack%d", i)
			tr := &dropTransport{}
			a := &mastertest.Agent{Master: h.srv.URL, Name: name, Pool: "training", GPUs: 1, AckPlacement: tc.ack,
				Token: h.tokenFor("/api/v1/agents/"+name, nil), Client: &http.Client{Transport: tr}}
			if reply, err := a.Register(h.ctx); err != nil || reply.Pool != "training" || reply.PlacementGen < 1 {
				t.Fatalf("register: pool %q, placement_gen %d, %v; want training and a generation", reply.Pool, reply.PlacementGen, err)
			}
			write(fmt.Sprintf("  - {name: %s, pool: research}\n", name))
			if err := h.m.Reload(h.ctx); err != nil {
				t.Fatalf("reload: %v", err)
			}
			for j, st := range tc.steps {
				tr.drop.Store(st.drop)
				start := time.Now()
				reply, err := a.Sync(h.ctx, st.waitS)
				if st.drop {
					if !errors.Is(err, errDropped) {
						t.Fatalf("sync %d: %v, want the reply dropped", j+1, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("sync %d: %v", j+1, err)
				}
				if !equalPlacement(reply.Placement, st.want) {
					t.Errorf("sync %d: placement %s, want %s", j+1, placementText(reply.Placement), placementText(st.want))
				}
				if gen := reply.PlacementGen; tc.ack != (gen > 0) {
					t.Errorf("sync %d: placement_gen %d to an agent that acknowledges: %v", j+1, gen, tc.ack)
				}
				if d := time.Since(start); st.waitS > 0 && d > 10*time.Second {
					t.Errorf("sync %d, owed the move, was held %s", j+1, d)
				}
			}
		})
	}
}

var errDropped = errors.New("the connection dropped after the master answered")

// dropTransport loses the master's replies while drop is set: the
// request reaches the master, which handles it, and the client gets an
// error instead of the reply.
type dropTransport struct{ drop atomic.Bool }

func (d *dropTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || !d.drop.Load() {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return nil, errDropped
}
