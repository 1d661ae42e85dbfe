package scenario

import (
	"reflect"
	"testing"
)

// asha is jobs with a valid asha experiment; its searcher is on line 14.
const asha = jobs + `    step_time: 10m
    max_concurrent: 2
    searcher: {name: asha, metric: loss, max_length: 9, divisor: 3, num_rungs: 3, max_trials: 3}
    trials:
      - {metric: [[1, 0.9], [3, 0.5], [9, 0.2]]}
      - {metric: []}
      - {metric: [[0, 1], [9, 0.1]]}
`

func TestParseSearcher(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		want   Searcher
		tasks  int
		conc   int
		dur    int64
		curves [][]Point
	}{
		{"asha with explicit trials", asha,
			Searcher{Name: SearcherASHA, Metric: "loss", SmallerIsBetter: true, MaxLength: 9, Divisor: 3, NumRungs: 3,
				Brackets: 1, MaxTrials: 3, Line: 14},
			3, 2, 5400, [][]Point{{{1, 0.9}, {3, 0.5}, {9, 0.2}}, {}, {{0, 1}, {9, 0.1}}}},
		// Defaults as in job files: divisor 4, 4 rungs, (4+1)/2 brackets;
		// the formula reports at every rung length of every bracket
		// (4, 16, 64 and 16, 64): e^0 at step 0 is never needed.
		{"adaptive with a formula", jobs + `    step_time: 1m
    searcher: {name: adaptive_asha, metric: acc, smaller_is_better: false, max_length: 64, max_trials: 2}
    curve: {start: 0, limit: [1, 0.5], rate: 0.5}
`,
			Searcher{Name: SearcherAdaptiveASHA, Metric: "acc", MaxLength: 64, Divisor: 4, NumRungs: 4,
				Brackets: 2, MaxTrials: 2, Line: 13},
			2, 2, 3840, [][]Point{
				{{1, 0.393469}, {4, 0.864665}, {16, 0.999665}, {64, 1}},
				{{1, 0.196735}, {4, 0.432332}, {16, 0.499832}, {64, 0.5}},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := mustParse(t, tc.src).Jobs[0]
			if j.Searcher == nil || *j.Searcher != tc.want {
				t.Errorf("searcher %+v, want %+v", j.Searcher, tc.want)
			}
			if j.Tasks != tc.tasks || j.MaxConcurrent != tc.conc || j.Duration != tc.dur {
				t.Errorf("tasks %d, max_concurrent %d, duration %d; want %d, %d, %d", j.Tasks, j.MaxConcurrent, j.Duration, tc.tasks, tc.conc, tc.dur)
			}
			if !reflect.DeepEqual(j.Curves, tc.curves) {
				t.Errorf("curves %v, want %v", j.Curves, tc.curves)
			}
		})
	}
}

func TestParseErrorsSearcher(t *testing.T) {
	exp := jobs + "    step_time: 1m\n"
	sr := "    searcher: {name: asha, metric: loss, max_length: 9, divisor: 3, num_rungs: 3, max_trials: 2}\n"
	two := "    trials: [{metric: [[1, 0.5]]}, {metric: [[1, 0.4]]}]\n"
	runErrorCases(t, []errorCase{
		{"searcher on a command", pools + "jobs:\n  - name: c\n    step_time: 1m\n" + sr + two, 12,
			`jobs[0] "c": searcher: only experiments have a searcher (add kind: experiment)`},
		{"step_time without searcher", exp, 12,
			`jobs[0] "asha": step_time: only an experiment with a searcher (asha or adaptive_asha) takes step_time`},
		{"curve without searcher", jobs + "    curve: {start: 1, limit: 0, rate: 1}\n", 12, "only an experiment with a searcher"},
		{"tasks with searcher", exp + "    tasks: 2\n" + sr + two, 13, `tasks: a job with a searcher has searcher.max_trials trials`},
		{"duration with searcher", exp + "    duration: 1h\n" + sr + two, 13, `duration: a job with a searcher`},
		{"missing step_time", jobs + sr + two, 10, `missing required field "step_time"`},
		{"grid", exp + "    searcher: {name: grid, metric: loss, max_length: 9, max_trials: 2}\n" + two, 13,
			"a grid search stops no trial early, so the simulator runs it as plain tasks"},
		{"typo", exp + "    searcher: {name: ashaa, metric: loss, max_length: 9, max_trials: 2}\n" + two, 13,
			`unknown searcher "ashaa"; did you mean "asha"?`},
		{"missing metric", exp + "    searcher: {name: asha, max_length: 9, max_trials: 2}\n" + two, 13,
			`jobs[0] "asha": searcher: missing required field "metric"`},
		{"brackets on asha", exp + "    searcher: {name: asha, metric: l, max_length: 9, max_trials: 2, brackets: 2}\n" + two, 13,
			"only adaptive_asha runs several brackets"},
		{"max_length too short", exp + "    searcher: {name: asha, metric: l, max_length: 9, max_trials: 2, num_rungs: 4}\n" + two, 13,
			"searcher: max_length: max_length: 9 steps are too few for 4 rungs with divisor 4"},
		{"max_concurrent_trials", exp + "    searcher: {name: asha, metric: l, max_length: 64, max_trials: 2, max_concurrent_trials: 1}\n" + two, 13,
			"max_concurrent_trials: in a scenario the job's max_concurrent bounds the trials running at once"},
		{"too few trials", exp + sr + "    trials: [{metric: [[1, 0.5]]}]\n", 14,
			"trials: 1 trials, but searcher.max_trials is 2: give one curve per trial"},
		{"not a pair", exp + sr + "    trials: [{metric: [[1, 0.5]]}, {metric: [[1, 0.4, 3]]}]\n", 14,
			`trials[1]: metric[0]: expected a [step, value] pair, got a list of 3`},
		{"steps fall", exp + sr + "    trials: [{metric: [[3, 0.5], [1, 0.4]]}, {metric: []}]\n", 14,
			"trials[0]: metric[1]: step 1 comes after step 3: steps must rise"},
		{"step past max_length", exp + sr + "    trials: [{metric: [[10, 0.5]]}, {metric: []}]\n", 14,
			`metric[0]: expected a step from 0 to max_length (9), got 10`},
		{"value not a number", exp + sr + "    trials: [{metric: [[1, .nan]]}, {metric: []}]\n", 14,
			`metric[0]: expected a finite number, got .nan`},
		{"unknown trial field", exp + sr + "    trials: [{metric: [], metrics: []}, {metric: []}]\n", 14,
			`trials[0]: unknown field "metrics"`},
		{"trials and curve", exp + sr + two + "    curve: {start: 1, limit: 0, rate: 1}\n", 15,
			"curve: give the trials' metric as trials (one curve each) or as curve (a formula), not both"},
		{"no curves", exp + sr, 10, "missing the trials' metric: give trials"},
		{"limits per trial", exp + sr + "    curve: {start: 1, limit: [0, 0.1, 0.2], rate: 1}\n", 14,
			"curve: limit: 3 values, but searcher.max_trials is 2"},
		{"rate not positive", exp + sr + "    curve: {start: 1, limit: 0, rate: [1, 0]}\n", 14,
			`curve: rate[1]: expected a number > 0, got 0`},
		{"curve without start", exp + sr + "    curve: {limit: 0, rate: 1}\n", 14, `curve: missing required field "start"`},
	})
}
