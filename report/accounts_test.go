package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/metrics"
	"github.com/allot-sched/allot/sim"
)

// accountRuns compares a run with accounts' fairness (two accounts jobs
// charged, under a parent) with runs without, as given.
func accountRuns(with ...bool) *Comparison {
	c := &Comparison{Workload: "mf.yaml", Slots: 8}
	for i, w := range with {
		m := sim.Metrics{Makespan: 3600, Jobs: 2, Completed: 2, JainFairness: 1}
		if w {
			m.JainFairnessAccounts = 0.8698
			m.Accounts = []metrics.AccountSummary{{Name: "physics", ShareRatio: 0.7},
				{Name: "physics/ann", Parent: "physics", Charged: true}, {Name: "physics/bob", Parent: "physics", Charged: true}}
		}
		c.Runs = append(c.Runs, Run{Name: []string{"current", "fcfs"}[i], Policy: "p", Result: &sim.Result{Metrics: m}})
	}
	return c
}

func TestAccountsFairnessReported(t *testing.T) {
	cases := []struct {
		name string
		with []bool
		row  string // the table's row, "" for none
		csv  []string
	}{
		{"no run has accounts", []bool{false, false}, "", []string{"", ""}},
		{"both runs", []bool{true, true}, "Jain fairness (accounts) 0.87 (2) 0.87 (2)", []string{"0.8698", "0.8698"}},
		{"one run has them, the other a dash", []bool{true, false}, "Jain fairness (accounts) 0.87 (2) -", []string{"0.8698", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTable(&b, accountRuns(c.with...)); err != nil {
				t.Fatal(err)
			}
			row := ""
			for line := range strings.Lines(b.String()) {
				if f := strings.Join(strings.Fields(line), " "); strings.HasPrefix(f, "Jain fairness (accounts)") {
					row = f
				}
			}
			if row != c.row {
				t.Errorf("accounts row %q, want %q:\n%s", row, c.row, b.String())
			}
			b.Reset()
			if err := WriteCSV(&b, accountRuns(c.with...)); err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(&b).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			last := len(recs[0]) - 1
			if recs[0][last] != "jain_fairness_accounts" || recs[0][last-1] != "label" {
				t.Fatalf("header ends %q, want the label then jain_fairness_accounts", recs[0][last-1:])
			}
			for i, want := range c.csv {
				if got := recs[i+1][last]; got != want {
					t.Errorf("run %s jain_fairness_accounts %q, want %q", recs[i+1][0], got, want)
				}
			}
		})
	}
}

func TestRequeuesRow(t *testing.T) {
	cases := []struct {
		name     string
		requeues []int
		want     []string // the rows from preemptions on, fields joined
	}{
		{"no run requeued", []int{0, 0}, []string{"preemptions 0 0", "slot-hours lost to preemption 0.02 0.02"}},
		{"one run requeued", []int{2, 0}, []string{"preemptions 0 0", "requeues 2 0",
			"slot-hours lost to preemption and requeue 0.02 0.02"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmp := accountRuns(false, false)
			for i, n := range c.requeues {
				cmp.Runs[i].Result.Metrics.Requeues = n
				cmp.Runs[i].Result.Metrics.PreemptionLostSlotHours = 0.02
			}
			var b bytes.Buffer
			if err := WriteTable(&b, cmp); err != nil {
				t.Fatal(err)
			}
			var got []string
			for line := range strings.Lines(b.String()) {
				f := strings.Join(strings.Fields(line), " ")
				if strings.HasPrefix(f, "preemptions") || strings.HasPrefix(f, "requeues") || strings.HasPrefix(f, "slot-hours lost") {
					got = append(got, f)
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
