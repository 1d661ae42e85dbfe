package lifecycle

import (
	"cmp"
	"math"
	"testing"

	"github.com/allot-sched/allot/sched"
)

const (
	hour = 3600
	day  = 24 * hour
)

var seedDecay = sched.Decay{Period: day, PerPeriod: 0.7}

// step is one call on a ledger keyed by string.
type step struct {
	at      int64 // Advance to at first (Hold), or the record's end (Charge)
	key     string
	hold    int     // Hold(key, hold) when non-zero
	from    int64   // Charge(key, from, at, slotSeconds) when slotSeconds > 0
	charged float64 // slot-seconds
}

func TestUsage(t *testing.T) {
	for _, tt := range []struct {
		name  string
		decay sched.Decay
		cap   int
		steps []step
		at    int64
		want  map[string]float64
	}{
		{"seed 003: six hours on four nodes is a quarter", seedDecay, 4,
			[]step{{at: 0, key: "jill", hold: 4}, {at: 6 * hour, key: "jill", hold: -4}}, 20 * hour,
			map[string]float64{"jill": 0.25}},
		{"seed 003: a day later it counts 0.7 times", seedDecay, 4,
			[]step{{at: 0, key: "jill", hold: 3}, {at: day, key: "jill", hold: -3}}, day,
			map[string]float64{"jill": 0.75 * 0.7}},
		{"seed 003: two days later 0.49 times", seedDecay, 4,
			[]step{{at: 0, key: "jill", hold: 3}, {at: day, key: "jill", hold: -3}}, 2*day + 5,
			map[string]float64{"jill": 0.3675}},
		{"usage counts in full until its period ends", seedDecay, 4,
			[]step{{at: 0, key: "jill", hold: 4}, {at: hour, key: "jill", hold: -4}}, day - 1,
			map[string]float64{"jill": 1.0 / 24}},
		{"holding across midnight splits at midnight", seedDecay, 4,
			[]step{{at: day - hour, key: "jack", hold: 4}, {at: day + hour, key: "jack", hold: -4}}, day + hour,
			map[string]float64{"jack": 0.7/24 + 1.0/24}},
		{"a record across midnight splits the same way", seedDecay, 4,
			[]step{{at: day + hour, key: "jack", from: day - hour, charged: 4 * 2 * hour}}, day + hour,
			map[string]float64{"jack": 0.7/24 + 1.0/24}},
		{"a record that ended periods ago decays for each", seedDecay, 1,
			[]step{{at: 3 * day, key: "x", hold: 1}, {at: 2 * hour, key: "y", from: hour, charged: day}}, 3 * day,
			map[string]float64{"y": 0.343}},
		{"half-life: each period decays by 2^(-period/half-life)", sched.Decay{Period: hour, HalfLife: 2 * hour}, 1,
			[]step{{at: hour, key: "a", from: 0, charged: hour}}, 2 * hour,
			map[string]float64{"a": 0.5}},
		{"keys apart", seedDecay, 2,
			[]step{{at: 0, key: "b", hold: 1}, {at: 0, key: "a", hold: 1}, {at: 12 * hour, key: "b", hold: -1}}, day - 1,
			map[string]float64{"a": (day - 1.0) / (2 * day), "b": 0.25}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := NewUsage(tt.decay, tt.cap, 0, cmp.Compare[string])
			for _, s := range tt.steps {
				if s.charged > 0 {
					l.Charge(s.key, s.from, s.at, s.charged)
					continue
				}
				l.Advance(s.at)
				l.Hold(s.key, s.hold)
			}
			l.Advance(tt.at)
			for k, want := range tt.want {
				if got := l.Get(k); math.Abs(got-want) > 1e-12 {
					t.Errorf("usage of %s = %.15g, want %.15g", k, got, want)
				}
			}
		})
	}
}

// TestChargeCutUp: one record, the same usage cut into records of any
// length, and the same records in another order give the same usage.
func TestChargeCutUp(t *testing.T) {
	for _, d := range []sched.Decay{seedDecay, {Period: hour, HalfLife: 5 * hour}} {
		whole := NewUsage(d, 8, 0, cmp.Compare[string])
		whole.Charge("k", 5*hour, 2*day+7, 3*float64(2*day+7-5*hour))
		for _, piece := range []int64{1, 300, 7 * 60, hour, 5 * hour} {
			inOrder := NewUsage(d, 8, 0, cmp.Compare[string])
			backwards := NewUsage(d, 8, 0, cmp.Compare[string])
			var cuts [][2]int64
			for a := int64(5 * hour); a < 2*day+7; a += piece {
				cuts = append(cuts, [2]int64{a, min(a+piece, 2*day+7)})
			}
			for _, c := range cuts {
				inOrder.Charge("k", c[0], c[1], 3*float64(c[1]-c[0]))
			}
			for i := len(cuts) - 1; i >= 0; i-- {
				backwards.Charge("k", cuts[i][0], cuts[i][1], 3*float64(cuts[i][1]-cuts[i][0]))
			}
			for _, l := range []*Usage[string]{whole, inOrder, backwards} {
				l.Advance(3 * day)
			}
			w := whole.Get("k")
			if g := inOrder.Get("k"); math.Abs(g-w) > 1e-12*w {
				t.Errorf("%+v, pieces of %ds: %.15g, want %.15g as one record", d, piece, g, w)
			}
			if g := backwards.Get("k"); math.Abs(g-w) > 1e-12*w {
				t.Errorf("%+v, pieces of %ds backwards: %.15g, want %.15g", d, piece, g, w)
			}
		}
	}
}

func TestKeysSorted(t *testing.T) {
	l := NewUsage(seedDecay, 1, 0, cmp.Compare[string])
	for _, k := range []string{"m", "c", "x", "a", "c"} {
		l.Hold(k, 1)
	}
	l.Add("b", 0.5)
	want := []string{"a", "b", "c", "m", "x"}
	if got := l.Keys(); len(got) != len(want) {
		t.Fatalf("keys %v, want %v", got, want)
	}
	for i, k := range l.Keys() {
		if k != want[i] {
			t.Fatalf("keys %v, want %v", l.Keys(), want)
		}
	}
	l.Advance(hour)
	if got := l.Get("c"); got != 2*float64(hour)/day {
		t.Errorf("c held two slots for an hour: %v", got)
	}
	if got := l.Get("b"); got != 0.5 {
		t.Errorf("b's starting balance: %v, want 0.5", got)
	}
}

func TestWorth(t *testing.T) {
	for _, tt := range []struct {
		name          string
		from, to, now int64
		slotSeconds   float64
		capacity      int
		want          float64
	}{
		{"within the period", hour, 2 * hour, 3 * hour, day, 1, 1},
		{"a period later", hour, 2 * hour, day + 3, day, 1, 0.7},
		{"across midnight", day - hour, day + hour, day + hour, 2 * hour * 2, 2, (0.7 + 1) / 24},
		{"nothing long", 5, 5, 5, 100, 1, 100.0 / day},
		{"before time 0", -hour, hour, hour, 2 * hour, 1, (0.7 + 1) / 24},
	} {
		if got := Worth(seedDecay, tt.capacity, tt.from, tt.to, tt.slotSeconds, tt.now); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: %.15g, want %.15g", tt.name, got, tt.want)
		}
	}
}

// TestSetCapacity: a capacity set again makes the usage so far a share
// of it, and what is held from then on counts against it, as the
// master's slot-periods over each snapshot's capacity; a capacity of 0
// changes nothing.
func TestSetCapacity(t *testing.T) {
	for _, tt := range []struct {
		name string
		to   int
		want float64
	}{
		// Six hours on all of four nodes is a quarter; with two nodes
		// deleted then, a half, and six hours more on the two left a
		// quarter more (an eighth with four).
		{"halved", 2, 1.0/2 + 1.0/4},
		{"the same", 4, 1.0/4 + 1.0/8},
		{"to 0: kept", 0, 1.0/4 + 1.0/8},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var l Ledgers
			acc := []sched.Account{{Name: "jill", Parent: -1, Shares: 1}}
			l.ChargeAccounts(seedDecay, 4, acc, 0)
			l.Advance(acc, 0)
			l.Hold(0, 4)
			l.Advance(acc, 6*hour)
			l.Hold(0, -2)
			l.SetCapacity(acc, 6*hour, tt.to)
			l.Advance(acc, 12*hour)
			if got := acc[0].Usage; math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("usage %v, want %v", got, tt.want)
			}
		})
	}
}
