package backstop

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

func TestHeard(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	id := agent.TaskID{JobID: "3", Attempt: 1}
	one := []api.TimeLimit{{Task: id, LimitS: 60, Deadline: t0.Add(time.Minute), LeftMS: 60_000}}
	type reply struct {
		at  time.Time
		ls  []api.TimeLimit
		reg bool
	}
	for _, tc := range []struct {
		name      string
		replies   []reply
		wantAt    time.Time // zero: no limit known
		wantKnown bool
	}{
		{"a sync's limit", []reply{{t0, one, false}}, t0.Add(time.Minute), true},
		{"an older reply handled later changes nothing", []reply{{t0, one, false}, {t0.Add(-time.Second), nil, false}}, t0.Add(time.Minute), true},
		{"a newer reply without it drops it", []reply{{t0, one, false}, {t0.Add(time.Second), nil, false}}, time.Time{}, true},
		{"a registration starts over", []reply{{t0, one, false}, {t0.Add(-time.Hour), nil, true}}, time.Time{}, false},
		{"counted from the arrival", []reply{{t0.Add(time.Hour), one, true}}, t0.Add(time.Hour + time.Minute), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Limits
			for _, r := range tc.replies {
				s.Heard(r.at, r.ls, r.reg)
			}
			d, ok := s.Of(id)
			if ok != !tc.wantAt.IsZero() || (ok && !d.At.Equal(tc.wantAt)) {
				t.Errorf("limit %+v (known %v), want at %v", d, ok, tc.wantAt)
			}
			if s.Known() != tc.wantKnown {
				t.Errorf("known = %v, want %v", s.Known(), tc.wantKnown)
			}
		})
	}
}

func TestMarkAndForMaster(t *testing.T) {
	d := Due{At: time.Now(), Limit: 90 * time.Minute, Deadline: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}
	note := d.Note(Slack)
	if want := "time limit of 1h30m (reached at 10:00:00 UTC by the master's clock): the master had not stopped it 5s later"; !strings.Contains(note, want) {
		t.Fatalf("note %q, want %q in it", note, want)
	}
	for _, tc := range []struct {
		name    string
		outcome agent.Outcome
		known   bool
		want    bool // stopped_at_limit sent
	}{
		{"killed, master knows", agent.OutcomeKilled, true, true},
		{"killed, older master", agent.OutcomeKilled, false, false},
		{"ended by itself first", agent.OutcomeCompleted, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := api.Report{Outcome: string(tc.outcome), Error: "exit 143"}
			Mark(&rep, note)
			sent := ForMaster([]api.Report{rep}, tc.known)
			if sent[0].StoppedAtLimit != tc.want {
				t.Errorf("stopped_at_limit = %v, want %v", sent[0].StoppedAtLimit, tc.want)
			}
			marked := tc.outcome == agent.OutcomeKilled
			if got := strings.HasPrefix(sent[0].Error, note+"; exit 143"); got != marked {
				t.Errorf("error %q, want the note first: %v", sent[0].Error, marked)
			}
			if !rep.StoppedAtLimit && marked {
				t.Error("ForMaster changed the caller's report")
			}
		})
	}
}
