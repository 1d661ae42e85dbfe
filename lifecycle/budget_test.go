package lifecycle

import "testing"

func TestBudget(t *testing.T) {
	type note struct {
		key string
		at  int64
	}
	for _, tt := range []struct {
		name  string
		notes []note
		key   string
		now   int64
		want  int
	}{
		{"nothing noted", nil, "a", 100, 0},
		{"one just now", []note{{"a", 100}}, "a", 100, 1},
		{"an hour ago to the second no longer counts", []note{{"a", 100}}, "a", 100 + hour, 0},
		{"a second less still counts", []note{{"a", 100}}, "a", 99 + hour, 1},
		{"other keys apart", []note{{"a", 100}, {"b", 100}, {"b", 200}}, "b", 300, 2},
		{"out of order", []note{{"a", 5000}, {"a", 100}, {"a", 4000}}, "a", 4000 + hour, 1},
		{"ahead of now counts", []note{{"a", 500}}, "a", 100, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBudget[string](hour)
			for _, n := range tt.notes {
				b.Note(n.key, n.at)
			}
			if got := b.Count(tt.key, tt.now); got != tt.want {
				t.Errorf("count %d, want %d", got, tt.want)
			}
			// Counting again gives the same: forgetting drops only what
			// can never count again.
			if got := b.Count(tt.key, tt.now); got != tt.want {
				t.Errorf("second count %d, want %d", got, tt.want)
			}
		})
	}
}

func TestBudgetForgets(t *testing.T) {
	b := NewBudget[int32](hour)
	for i := range int64(1000) {
		b.Note(1, i*60)
	}
	if got := b.Count(1, 999*60); got != 60 {
		t.Fatalf("count %d, want the last hour's 60", got)
	}
	if n := len(b.times[1]); n != 60 {
		t.Errorf("%d times kept, want 60", n)
	}
	if got := b.Count(1, 999*60+2*hour); got != 0 || len(b.times) != 0 {
		t.Errorf("count %d with %d keys kept, want 0 and none", got, len(b.times))
	}
}
