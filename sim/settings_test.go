package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/allot-sched/allot/sched"
)

func TestParseSettings(t *testing.T) {
	yes := true
	cases := []struct {
		text string
		want Settings
		err  string
	}{
		{text: "name=easy-spread,policy=backfill,reservations=easy,placement=spread",
			want: Settings{Name: "easy-spread", Policy: sched.PolicyBackfill, Reservations: sched.ReserveEASY, Placement: sched.PlaceSpread}},
		{text: "policy=conservative",
			want: Settings{Name: "policy=conservative", Policy: sched.PolicyBackfill, Reservations: sched.ReserveConservative}},
		{text: "reservations=easy, policy=conservative",
			want: Settings{Name: "reservations=easy, policy=conservative", Policy: sched.PolicyBackfill, Reservations: sched.ReserveEASY}},
		{text: "name=p,policy=priority,preemption=true,checkpoint_cost=2m",
			want: Settings{Name: "p", Policy: sched.PolicyPriority, Preemption: &yes, CheckpointCost: ptr(int64(120))}},
		{text: "policy=sjf", err: `policy: unknown policy "sjf"`},
		{text: "placement=random", err: "placement: want binpack or spread"},
		{text: "policy", err: `"policy" is not key=value`},
		{text: "name=a,name=b", err: "name is given twice"},
		{text: "serial=maybe", err: "serial: want true or false"},
		{text: "speed=fast", err: "unknown key"},
		{text: "reservation=easy", err: `; did you mean "reservations"?`},
		{text: "checkpoint_cost=1.5s", err: "checkpoint_cost: want whole seconds"},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			got, err := ParseSettings(c.text)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !sameSettings(got, c.want) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func sameSettings(a, b Settings) bool {
	eqb := func(x, y *bool) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqi := func(x, y *int64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Name == b.Name && a.Policy == b.Policy && a.Reservations == b.Reservations &&
		a.Placement == b.Placement && eqb(a.Serial, b.Serial) && eqb(a.Preemption, b.Preemption) &&
		eqb(a.Backfill, b.Backfill) && eqi(a.CheckpointCost, b.CheckpointCost)
}

// TestApplySettings: a new policy resets the old one's settings, explicit
// ones apply on top, and combinations a scenario would reject fail.
func TestApplySettings(t *testing.T) {
	serial := Pool{Pool: sched.Pool{Name: "p", Policy: sched.PolicyFIFO, Serial: true, Placement: sched.PlaceBinpack}}
	cases := []struct {
		name string
		set  string
		want sched.Pool
		err  string
	}{
		{"policy resets serial", "policy=easy",
			sched.Pool{Name: "p", Policy: sched.PolicyBackfill, Reservations: sched.ReserveEASY, Placement: sched.PlaceBinpack}, ""},
		{"placement alone keeps the policy", "placement=spread",
			sched.Pool{Name: "p", Policy: sched.PolicyFIFO, Serial: true, Placement: sched.PlaceSpread}, ""},
		{"reservations need backfill", "reservations=conservative", sched.Pool{}, "reservations apply only to policy backfill"},
		{"serial needs fifo", "policy=priority,serial=true", sched.Pool{}, "serial applies only to policy fifo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseSettings(c.set)
			if err != nil {
				t.Fatal(err)
			}
			p := serial
			err = s.apply(&p)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || p.Pool.Name != c.want.Name || p.Policy != c.want.Policy || p.Serial != c.want.Serial ||
				p.Reservations != c.want.Reservations || p.Placement != c.want.Placement {
				t.Errorf("pool %+v, %v; want %+v", p.Pool, err, c.want)
			}
		})
	}
}

// TestQuotaPoolTakesNoPreemption: a quota pool reclaims whatever
// preemption says, so --set's preemption of one is an error, as the
// scenario file's field is, not a setting ignored in silence.
func TestQuotaPoolTakesNoPreemption(t *testing.T) {
	for _, set := range []string{"preemption=false", "preemption=true", "placement=spread,preemption=0"} {
		t.Run(set, func(t *testing.T) {
			s, err := ParseSettings(set)
			if err != nil {
				t.Fatal(err)
			}
			p := Pool{Pool: sched.Pool{Name: "q", Policy: sched.PolicyQuota, Placement: sched.PlaceBinpack}}
			err = s.apply(&p)
			var se *SettingsError
			if !errors.As(err, &se) || se.Key != "preemption" ||
				!strings.Contains(err.Error(), `pool "q" (quota) always reclaims quota by preemption; drop preemption from the option set`) {
				t.Fatalf("error %v, want the quota pool's preemption refused as the option set's fault", err)
			}
		})
	}
	s, err := ParseSettings("placement=spread")
	if err != nil {
		t.Fatal(err)
	}
	p := Pool{Pool: sched.Pool{Name: "q", Policy: sched.PolicyQuota, Placement: sched.PlaceBinpack}}
	if err := s.apply(&p); err != nil || p.Placement != sched.PlaceSpread {
		t.Fatalf("placement=spread on a quota pool: %v, placement %s", err, p.Placement)
	}
}

// FuzzParseSettings: any text either fails with an error or gives named
// settings whose application to a pool gives a pool the core accepts or a
// clear error; nothing panics.
func FuzzParseSettings(f *testing.F) {
	for _, s := range []string{
		"name=easy-spread,policy=backfill,reservations=easy,placement=spread",
		"policy=fcfs", "policy=priority,preemption=true,backfill=1", "checkpoint_cost=90s,serial=false",
		"=,", ",,", "name==", "policy=easy,policy=easy",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSettings(text)
		if err != nil {
			return
		}
		if s.Name == "" {
			t.Fatalf("%q: settings without a name", text)
		}
		p := clusterPool(2, 1)
		if err := s.apply(&p); err == nil {
			if err := checkPool(&p.Pool); err != nil {
				t.Fatalf("%q: applied settings give a bad pool: %v", text, err)
			}
		}
	})
}
