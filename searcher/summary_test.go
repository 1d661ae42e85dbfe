package searcher

import (
	"strconv"
	"strings"
	"testing"
)

// TestObserveJoins: the joins a report makes are the rungs it reached,
// promoted but the last where the trial stopped or was done, with the
// rung's count once it joined; the first to arrive is named so.
func TestObserveJoins(t *testing.T) {
	s, err := New(Config{Metric: "loss", SmallerIsBetter: true, MaxLength: 9, Divisor: 3, NumRungs: 3, MaxTrials: 4, Brackets: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, first, _ := s.ObserveJoins(0, 9, 5) // alone at every rung: 1, 3, 9
	_, behind, _ := s.ObserveJoins(1, 3, 9)
	cases := []struct {
		name  string
		joins []Join
		want  string // rungs:decision/count
		note  string
	}{
		{"first at every rung", first, "0:promoted/1 1:promoted/1 2:done/1", "promoted at rungs 0-1 as the first to arrive"},
		{"behind at rung 0", behind, "0:stopped/2", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, j := range c.joins {
				got = append(got, strings.Join([]string{strconv.Itoa(j.Rung), j.Decision + "/" + strconv.Itoa(j.RungTrials)}, ":"))
			}
			if g := strings.Join(got, " "); g != c.want {
				t.Errorf("joins %q, want %q", g, c.want)
			}
			if n := FirstArrivals(c.joins); n != c.note {
				t.Errorf("note %q, want %q", n, c.note)
			}
		})
	}
	var b strings.Builder
	WriteRungs(&b, "  ", [][]int64{s.Rungs(0)}, []TrialRungs{
		{Trial: 0, Decisions: []string{Promoted, Promoted, "done"}}, {Trial: 1, Decisions: []string{"stopped"}}})
	want := "  rung 0 (step 1): 2 joined, 1 promoted, 1 stopped (trial 1)\n  rung 1 (step 3): 1 joined, 1 promoted, 0 stopped\n  rung 2 (step 9): 1 joined, 1 done (trial 0)\n"
	if b.String() != want {
		t.Errorf("WriteRungs:\n%s\nwant:\n%s", b.String(), want)
	}
}
