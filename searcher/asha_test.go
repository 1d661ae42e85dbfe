package searcher

import (
	"slices"
	"strings"
	"testing"
)

func TestRungLengths(t *testing.T) {
	cases := []struct {
		name    string
		max     int64
		divisor float64
		rungs   int
		want    []int64
	}{
		{"divisor 3", 81, 3, 4, []int64{3, 9, 27, 81}},
		{"divisor 4", 100, 4, 3, []int64{6, 25, 100}},
		{"one rung", 10, 4, 1, []int64{10}},
		{"floored at 1", 4, 4, 3, []int64{1, 1, 4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RungLengths(c.max, c.divisor, c.rungs); !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestBracketTrials(t *testing.T) {
	cases := []struct {
		name      string
		maxTrials int
		rungs     []int
		want      []int
	}{
		{"one bracket", 16, []int{4}, []int{16}},
		{"three brackets", 100, []int{4, 3, 2}, []int{61, 26, 13}},
		{"every bracket gets one", 3, []int{4, 3, 2}, []int{1, 1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := BracketTrials(c.maxTrials, 3, c.rungs)
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	ok := Config{Metric: "loss", MaxLength: 81, Divisor: 3, NumRungs: 4, MaxTrials: 9, Brackets: 2}
	cases := []struct {
		name   string
		change func(c *Config)
		errHas string
	}{
		{"valid", func(c *Config) {}, ""},
		{"no metric", func(c *Config) { c.Metric = "" }, "metric:"},
		{"no length", func(c *Config) { c.MaxLength = 0 }, "max_length: 0"},
		{"divisor 1", func(c *Config) { c.Divisor = 1 }, "divisor: 1"},
		{"too many brackets", func(c *Config) { c.Brackets = 5 }, "brackets: 5"},
		{"too short", func(c *Config) { c.MaxLength = 10 }, "max_length: 10 steps are too few"},
		{"brackets above trials", func(c *Config) { c.MaxTrials = 1 }, "more than max_trials"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := ok
			c.change(&cfg)
			err := cfg.Validate()
			if c.errHas == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Fatalf("err = %v, want one containing %q", err, c.errHas)
			}
		})
	}
}

// report is one Observe call and the decision it must return.
type report struct {
	trial int
	step  int64
	value float64
	want  Decision
}

// TestObserve plays report sequences through one-bracket searches and
// checks every decision: who is promoted, who is stopped, and when.
func TestObserve(t *testing.T) {
	asha := Config{Metric: "loss", SmallerIsBetter: true, MaxLength: 9, Divisor: 3, NumRungs: 3, MaxTrials: 6, Brackets: 1}
	cases := []struct {
		name    string
		cfg     Config
		reports []report
	}{
		{"first trial at a rung always goes on", asha, []report{
			{0, 1, 5, Continue},
		}},
		{"below the rung length nothing is decided", asha, []report{
			{0, 0, 5, Continue}, {1, 0, 1, Continue}, {1, 0, 100, Continue},
		}},
		{"worse second trial stops, better one goes on", asha, []report{
			{0, 1, 5, Continue}, {1, 1, 9, Stop}, {2, 1, 1, Continue},
		}},
		{"top third of six goes on", asha, []report{
			{0, 1, 6, Continue}, {1, 1, 5, Continue}, {2, 1, 4, Continue},
			{3, 1, 7, Stop}, {4, 1, 5.5, Stop}, {5, 1, 3, Continue},
		}},
		{"ties rank the earlier first", asha, []report{
			{0, 1, 5, Continue}, {1, 1, 5, Stop},
		}},
		{"promoted to the top rung is done", asha, []report{
			{0, 1, 5, Continue}, {0, 3, 4, Continue}, {0, 9, 3, Done}, {0, 10, 2, Done},
		}},
		{"a report past two rungs joins both", asha, []report{
			{0, 3, 5, Continue}, {1, 1, 4, Continue}, {1, 3, 6, Stop},
		}},
		{"stopped trials ignore later reports", asha, []report{
			{0, 1, 1, Continue}, {1, 1, 2, Stop}, {1, 3, 0, Stop},
		}},
		{"larger is better", Config{Metric: "acc", MaxLength: 9, Divisor: 3, NumRungs: 3, MaxTrials: 3, Brackets: 1}, []report{
			{0, 1, 0.5, Continue}, {1, 1, 0.4, Stop}, {2, 1, 0.9, Continue},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for k, r := range c.reports {
				got, err := s.Observe(r.trial, r.step, r.value)
				if err != nil {
					t.Fatal(err)
				}
				if got != r.want {
					t.Fatalf("report %d (trial %d step %d value %v): %s, want %s", k, r.trial, r.step, r.value, got, r.want)
				}
			}
		})
	}
}

// TestAdaptiveBrackets checks the dealing of trials to brackets and that
// each bracket cuts at its own rungs.
func TestAdaptiveBrackets(t *testing.T) {
	s, err := New(Config{Metric: "loss", SmallerIsBetter: true, MaxLength: 27, Divisor: 3, NumRungs: 3, MaxTrials: 8, Brackets: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for i := range s.Trials() {
		got = append(got, s.Trial(i).Bracket)
	}
	// Shares 9/3=3 and 3/2=1.5 of 8: 6 and 2, spread over the index order.
	if want := []int{0, 1, 0, 0, 0, 1, 0, 0}; !slices.Equal(got, want) {
		t.Fatalf("brackets %v, want %v", got, want)
	}
	if r0, r1 := s.Rungs(0), s.Rungs(1); !slices.Equal(r0, []int64{3, 9, 27}) || !slices.Equal(r1, []int64{9, 27}) {
		t.Fatalf("rungs %v and %v", r0, r1)
	}
	// Trial 1 (bracket 1) is not judged at step 3; trial 2 (bracket 0) is.
	steps := []report{{0, 3, 1, Continue}, {1, 3, 9, Continue}, {2, 3, 2, Stop}, {1, 9, 9, Continue}, {5, 9, 10, Stop}}
	for _, r := range steps {
		if d, _ := s.Observe(r.trial, r.step, r.value); d != r.want {
			t.Fatalf("trial %d step %d: %s, want %s", r.trial, r.step, d, r.want)
		}
	}
	if !strings.Contains(s.Reason(2), "stopped early by the searcher at step 3") {
		t.Errorf("reason: %s", s.Reason(2))
	}
}
