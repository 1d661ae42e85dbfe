package sim

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteReport prints a result for people: one row per job, then the
// cluster metrics, then why each still-waiting job waits.
func WriteReport(w io.Writer, res *Result) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tSTATE\tSUBMIT\tSTART\tEND\tWAIT\tPREEMPTIONS")
	for _, j := range res.Jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\n", j.Name, j.State, Clock(j.Submit),
			clockPtr(j.Start), clockPtr(j.End), clockPtr(j.Wait), j.Preemptions)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	m := res.Metrics
	fmt.Fprintf(w, "\nmakespan     %s\n", Clock(m.Makespan))
	fmt.Fprintf(w, "utilisation  %.1f%%\n", 100*m.Utilization)
	fmt.Fprintf(w, "avg wait     %s\n", Clock(int64(m.AvgWait+0.5)))
	fmt.Fprintf(w, "avg JCT      %s\n", Clock(int64(m.AvgJCT+0.5)))
	fmt.Fprintf(w, "preemptions  %d\n", m.Preemptions)
	var waiting []string
	for _, j := range res.Jobs {
		if j.Reason != "" {
			waiting = append(waiting, fmt.Sprintf("  %s: %s", j.Name, j.Reason))
		}
	}
	if len(waiting) > 0 {
		fmt.Fprintf(w, "\nstill waiting at %s:\n%s\n", Clock(res.End), strings.Join(waiting, "\n"))
	}
	return nil
}

// Clock formats seconds compactly: 0, 45s, 2h, 1h30m.
func Clock(sec int64) string {
	if sec == 0 {
		return "0"
	}
	s := (time.Duration(sec) * time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func clockPtr(p *int64) string {
	if p == nil {
		return "-"
	}
	return Clock(*p)
}
