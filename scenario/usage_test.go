package scenario

import (
	"reflect"
	"testing"
)

// TestUserLeavesAndEpoch: a file may declare a user's leaf, ACCOUNT/USER,
// with its shares and usage, which the jobs of that account and user
// charge (the history export declares the live master's leaves so, "-"
// being its user of jobs without one), and
// the Unix time of its time 0; Marshal writes both back.
func TestUserLeavesAndEpoch(t *testing.T) {
	file := mfPools + `  - {name: biology/ann, shares: 2, usage: 0.5}
epoch: 1764140400
jobs:
  - {name: a, pool: mf, account: biology, user: ann, duration: 1h}
  - {name: b, pool: mf, account: biology, user: bob, duration: 1h}
  - {name: c, pool: mf, account: biology, user: "-", duration: 1h}
`
	s, err := Parse("leaves.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if s.Epoch != 1764140400 {
		t.Errorf("epoch %d", s.Epoch)
	}
	var got []Account
	for _, a := range s.Accounts[3:] {
		a.Line = 0
		got = append(got, a)
	}
	want := []Account{{Name: "biology/ann", Parent: "biology", Shares: 2, Usage: 0.5},
		{Name: "biology/bob", Parent: "biology", Shares: 1, User: true},
		{Name: "biology/-", Parent: "biology", Shares: 1, User: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("leaves %+v, want %+v", got, want)
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("leaves.yaml", out)
	if err != nil {
		t.Fatalf("Marshal's output does not parse: %v\n%s", err, out)
	}
	clearLines(reflect.ValueOf(s))
	clearLines(reflect.ValueOf(back))
	if !reflect.DeepEqual(s, back) {
		t.Errorf("round trip changed the scenario\n got: %+v\nwant: %+v\n%s", back, s, out)
	}
}
