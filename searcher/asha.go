package searcher

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Config configures a Search. Brackets is 1 for plain ASHA.
type Config struct {
	Metric          string
	SmallerIsBetter bool
	MaxLength       int64   // steps a trial trains at most; the top rung
	Divisor         float64 // reduction factor η > 1
	NumRungs        int     // rungs of the most aggressive bracket
	MaxTrials       int
	Brackets        int // 1 to NumRungs
}

// Decision is what a trial does next.
type Decision string

// Decisions.
const (
	Continue Decision = "continue" // train on to the next rung
	Stop     Decision = "stopped"  // stopped early; free its GPUs now
	Done     Decision = "done"     // reached the top rung: max_length
)

// Validate checks a configuration, naming the job file field at fault.
func (c Config) Validate() error {
	switch {
	case c.Metric == "":
		return errors.New("metric: expected the name of the metric the trials report")
	case c.MaxLength < 1:
		return fmt.Errorf("max_length: %d, expected a number of steps >= 1", c.MaxLength)
	case !(c.Divisor > 1) || math.IsInf(c.Divisor, 0):
		return fmt.Errorf("divisor: %v, expected a number > 1", c.Divisor)
	case c.NumRungs < 1:
		return fmt.Errorf("num_rungs: %d, expected >= 1", c.NumRungs)
	case c.MaxTrials < 1:
		return fmt.Errorf("max_trials: %d, expected >= 1", c.MaxTrials)
	case c.Brackets < 1 || c.Brackets > c.NumRungs:
		return fmt.Errorf("brackets: %d, expected 1 to num_rungs (%d)", c.Brackets, c.NumRungs)
	case c.Brackets > c.MaxTrials:
		return fmt.Errorf("brackets: %d, more than max_trials (%d): a bracket would have no trial", c.Brackets, c.MaxTrials)
	}
	lengths := RungLengths(c.MaxLength, c.Divisor, c.NumRungs)
	for i := 1; i < len(lengths); i++ {
		if lengths[i] <= lengths[i-1] {
			return fmt.Errorf("max_length: %d steps are too few for %d rungs with divisor %v (rung lengths %v repeat); "+
				"raise max_length to at least %v or lower num_rungs", c.MaxLength, c.NumRungs, c.Divisor, lengths,
				math.Ceil(math.Pow(c.Divisor, float64(c.NumRungs-1))))
		}
	}
	return nil
}

// RungLengths returns the step lengths of a bracket's rungs:
// max(1, floor(maxLength/divisor^(rungs-1-k))) for k = 0..rungs-1.
func RungLengths(maxLength int64, divisor float64, rungs int) []int64 {
	out := make([]int64, rungs)
	for k := range rungs {
		out[k] = max(1, int64(math.Floor(float64(maxLength)/math.Pow(divisor, float64(rungs-1-k))+1e-9)))
	}
	return out
}

// BracketTrials shares maxTrials among brackets of the given rung counts
// in proportion to divisor^(R-1)/R; the rounding remainder goes to the
// first (most aggressive) bracket.
func BracketTrials(maxTrials int, divisor float64, rungs []int) []int {
	weights := make([]float64, len(rungs))
	sum := 0.0
	for i, r := range rungs {
		weights[i] = math.Pow(divisor, float64(r-1)) / float64(r)
		sum += weights[i]
	}
	out := make([]int, len(rungs))
	left := maxTrials
	for i := range rungs {
		out[i] = int(float64(maxTrials) * weights[i] / sum)
		left -= out[i]
	}
	out[0] += left
	// Every bracket gets a trial when there are enough: take from the
	// largest.
	for i := range out {
		if out[i] == 0 {
			j := 0
			for k := range out {
				if out[k] > out[j] {
					j = k
				}
			}
			if out[j] > 1 {
				out[j]--
				out[i]++
			}
		}
	}
	return out
}

// rung holds the values that reached it, best first.
type rung struct {
	length int64
	values []float64
}

type bracket struct {
	rungs []rung
}

// Trial is one trial's standing.
type Trial struct {
	Bracket  int
	Rung     int // rungs reached so far (0: none yet)
	Decision Decision
	// StoppedAt is the step of the report that stopped the trial, or
	// that reached the top rung.
	StoppedAt int64
	// Value is the metric of that report.
	Value float64
}

// Search is the state of one experiment's ASHA search.
type Search struct {
	cfg      Config
	brackets []bracket
	trials   []Trial
}

// New makes a Search; trials are dealt to brackets up front, by index.
func New(cfg Config) (*Search, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Search{cfg: cfg}
	counts := make([]int, cfg.Brackets)
	for b := range cfg.Brackets {
		counts[b] = cfg.NumRungs - b
	}
	caps := BracketTrials(cfg.MaxTrials, cfg.Divisor, counts)
	for _, r := range counts {
		br := bracket{}
		for _, l := range RungLengths(cfg.MaxLength, cfg.Divisor, r) {
			br.rungs = append(br.rungs, rung{length: l})
		}
		s.brackets = append(s.brackets, br)
	}
	// Deal the trials so that each bracket's share spreads over the index
	// order: each goes to the bracket least filled relative to its share
	// (ties to the more aggressive one). Trials start roughly in index
	// order, so every bracket gets started trials early.
	filled := make([]int, len(caps))
	s.trials = make([]Trial, cfg.MaxTrials)
	for i := range s.trials {
		best := -1
		for b := range caps {
			if filled[b] >= caps[b] {
				continue
			}
			if best < 0 || filled[b]*caps[best] < filled[best]*caps[b] {
				best = b
			}
		}
		filled[best]++
		s.trials[i] = Trial{Bracket: best, Decision: Continue}
	}
	return s, nil
}

// Config returns the search's configuration.
func (s *Search) Config() Config { return s.cfg }

// Trial returns trial i's standing.
func (s *Search) Trial(i int) Trial { return s.trials[i] }

// Trials returns how many trials the search has.
func (s *Search) Trials() int { return len(s.trials) }

// Rungs returns bracket b's rung lengths.
func (s *Search) Rungs(b int) []int64 {
	var out []int64
	for _, r := range s.brackets[b].rungs {
		out = append(out, r.length)
	}
	return out
}

// MaxSteps is trial i's step budget: its bracket's top rung, max_length.
func (s *Search) MaxSteps(i int) int64 {
	rs := s.brackets[s.trials[i].Bracket].rungs
	return rs[len(rs)-1].length
}

// better reports whether a ranks before b.
func (s *Search) better(a, b float64) bool {
	if s.cfg.SmallerIsBetter {
		return a < b
	}
	return a > b
}

// Observe takes trial i's metric value at step and returns the trial's
// decision. A report below the next rung's length changes nothing; one at
// or past it joins that rung (and any further rungs it also reaches). A
// trial that has stopped or is done ignores further reports. An index out
// of range is an error.
func (s *Search) Observe(i int, step int64, value float64) (Decision, error) {
	if i < 0 || i >= len(s.trials) {
		return "", fmt.Errorf("trial %d: expected 0 to %d", i, len(s.trials)-1)
	}
	if math.IsNaN(value) || math.IsInf(value, 0) {
		return "", fmt.Errorf("trial %d step %d: %s is %v, expected a finite number", i, step, s.cfg.Metric, value)
	}
	t := &s.trials[i]
	rungs := s.brackets[t.Bracket].rungs
	for t.Decision == Continue && t.Rung < len(rungs) && step >= rungs[t.Rung].length {
		r := &rungs[t.Rung]
		rank := sortInsert(r, value, s.better)
		t.Rung++
		switch {
		case t.Rung == len(rungs):
			t.Decision, t.StoppedAt, t.Value = Done, step, value
		case float64(rank) >= max(float64(len(r.values))/s.cfg.Divisor, 1):
			t.Decision, t.StoppedAt, t.Value = Stop, step, value
		}
	}
	return t.Decision, nil
}

// sortInsert puts v into r after every value at least as good, and
// returns its rank from 0.
func sortInsert(r *rung, v float64, better func(a, b float64) bool) int {
	at := len(r.values)
	for k, x := range r.values {
		if better(v, x) {
			at = k
			break
		}
	}
	r.values = slices.Insert(r.values, at, v)
	return at
}

// Reason explains trial i's decision for people.
func (s *Search) Reason(i int) string {
	t := s.trials[i]
	rungs := s.brackets[t.Bracket].rungs
	switch t.Decision {
	case Stop:
		r := rungs[t.Rung-1]
		return fmt.Sprintf("stopped early by the searcher at step %d: %s %s is not in the top 1/%s of rung %d (length %d, %d trials) of bracket %d",
			t.StoppedAt, s.cfg.Metric, strconv.FormatFloat(t.Value, 'g', 6, 64), strconv.FormatFloat(s.cfg.Divisor, 'g', -1, 64),
			t.Rung-1, r.length, len(r.values), t.Bracket)
	case Done:
		return fmt.Sprintf("reached max_length (%d steps)", rungs[len(rungs)-1].length)
	}
	return fmt.Sprintf("training on to rung %d (step %d)", t.Rung, rungs[min(t.Rung, len(rungs)-1)].length)
}
