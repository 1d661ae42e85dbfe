package scenario

import (
	"reflect"
	"testing"
)

// limitsFile has a multifactor pool with two QOS levels and a FIFO pool.
const limitsFile = `pools:
  - {name: mf, policy: multifactor, multifactor: {qos: 1000}, nodes: [{name: n, slots: 4}]}
  - {name: f, policy: fifo, nodes: [{name: m, slots: 4}]}
qos: [{name: normal, priority: 0}, {name: high, priority: 10}]
jobs:
  - {name: a, pool: mf, duration: 1h, time_limit: 2h}
  - {name: b, pool: f, duration: 1h}
`

// TestSetLimitEvents: set_time_limit, set_qos and set_nice parse, with
// the job file's duration forms, and Marshal writes them back alike.
func TestSetLimitEvents(t *testing.T) {
	s := mustParse(t, limitsFile+`events:
  - {at: 10m, set_time_limit: {job: a, time_limit: 30m}}
  - {at: 20m, set_time_limit: {job: b, time_limit: "1-00:00:00"}}
  - {at: 30m, set_time_limit: {job: b, time_limit: 0}}
  - {at: 40m, set_qos: {job: a, qos: high}}
  - {at: 50m, set_nice: {job: a, nice: -20}}
`)
	want := []Event{
		{At: 600, Kind: EventSetTimeLimit, Job: "a", TimeLimit: 1800},
		{At: 1200, Kind: EventSetTimeLimit, Job: "b", TimeLimit: 86400},
		{At: 1800, Kind: EventSetTimeLimit, Job: "b"},
		{At: 2400, Kind: EventSetQOS, Job: "a", QOS: "high"},
		{At: 3000, Kind: EventSetNice, Job: "a", Nice: -20},
	}
	clearLines(reflect.ValueOf(s))
	if !reflect.DeepEqual(s.Events, want) {
		t.Fatalf("events = %+v\nwant %+v", s.Events, want)
	}
	out, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("back.yaml", out)
	if err != nil {
		t.Fatalf("Marshal's output does not parse: %v\n%s", err, out)
	}
	clearLines(reflect.ValueOf(back))
	if !reflect.DeepEqual(back.Events, want) {
		t.Errorf("round trip: events = %+v\nwant %+v\n%s", back.Events, want, out)
	}
}

func TestParseErrorsSetLimits(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"set_time_limit negative", limitsFile + "events:\n  - {at: 1m, set_time_limit: {job: a, time_limit: -5}}\n", 9,
			`events[0]: set_time_limit: time_limit: expected a duration >= 0, got -5`},
		{"set_time_limit missing time_limit", limitsFile + "events:\n  - {at: 1m, set_time_limit: {job: a}}\n", 9,
			`set_time_limit: missing required field "time_limit"`},
		{"set_time_limit unknown job", limitsFile + "events:\n  - {at: 1m, set_time_limit: {job: c, time_limit: 1h}}\n", 9,
			`unknown job "c"`},
		{"set_qos unknown QOS", limitsFile + "events:\n  - {at: 1m, set_qos: {job: a, qos: hihg}}\n", 9,
			`events[0]: set_qos: qos: unknown QOS "hihg"; did you mean "high"? (QOS: normal, high)`},
		{"set_qos in a fifo pool", limitsFile + "events:\n  - {at: 1m, set_qos: {job: b, qos: high}}\n", 9,
			`set_qos: job: job "b" runs in pool "f", whose policy is fifo: only priority and multifactor pools use a job's QOS`},
		{"set_nice in a fifo pool", limitsFile + "events:\n  - {at: 1m, set_nice: {job: b, nice: 5}}\n", 9,
			`set_nice: job: job "b" runs in pool "f", whose policy is fifo: only multifactor pools compute a priority for nice to adjust`},
		{"set_nice out of range", limitsFile + "events:\n  - {at: 1m, set_nice: {job: a, nice: 2000000000}}\n", 9,
			`set_nice: nice: expected an integer from -1000000000 to 1000000000, got 2000000000`},
		{"set_nice missing nice", limitsFile + "events:\n  - {at: 1m, set_nice: {job: a}}\n", 9,
			`set_nice: missing required field "nice"`},
	})
}
