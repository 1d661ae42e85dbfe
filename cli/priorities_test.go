package cli

import (
	"net/http"
	"slices"
	"testing"

	"github.com/allot-sched/allot/api"
)

// fakePriorities is the fake master's GET /priorities: research is its
// multifactor pool, batch a FIFO one; project ml has no waiting job.
func fakePriorities(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch pool := q.Get("pool"); pool {
	case "", "research":
	case "batch":
		reply(w, 400, api.Error{Error: `pool "batch" has policy fifo, not multifactor: its jobs have no multifactor priority`, Field: "pool"})
		return
	default:
		reply(w, 400, api.Error{Error: `pool "` + pool + `": no such pool (pools: research, batch)`, Field: "pool"})
		return
	}
	p := fixturePriorities()
	if q.Get("project") == "ml" {
		p.Jobs = []api.JobPriority{}
	}
	reply(w, 200, p)
}

func fixturePriorities() api.Priorities {
	return api.Priorities{AsOf: t0, Pools: []api.PoolWeights{{Pool: "research", Age: 10, FairShare: 100, QOS: 50}},
		Jobs: []api.JobPriority{
			{ID: 5, Name: "asha", User: "bo", Project: "nlp", Pool: "research", Position: 1, Priority: 83.33,
				Factors:  api.Factors{Age: 0.5, FairShare: 0.78333, QOS: 0.1, Priority: 83.33},
				Weighted: api.Factors{Age: 5, FairShare: 78.333, QOS: 5, Priority: 83.33}},
			{ID: 7, Name: "sweep", User: "ana", Project: "vision", Pool: "research", Position: 2, Priority: 20.25,
				Factors:  api.Factors{Age: 0.125, FairShare: 0.2, Nice: 1},
				Weighted: api.Factors{Age: 1.25, FairShare: 20, Nice: 1, Priority: 20.25}},
		}}
}

// TestPriorities: allot priorities (and its alias sprio) prints sprio's
// columns, -o wide the factors and the weights, -o csv every column raw;
// an empty answer prints
// the header and a note; the master's 400s come through.
func TestPriorities(t *testing.T) {
	f := newFakeMaster(t)
	table := `JOB  USER  PROJECT  POOL      PRIORITY  AGE   FAIRSHARE  JOBSIZE  QOS  POOLFACTOR  NICE
5    bo    nlp      research  83.33     5     78.33      0        5    0           0
7    ana   vision   research  20.25     1.25  20         0        0    0           1
`
	runCLICases(t, f, []cliCase{
		{name: "table", args: []string{"priorities"}, out: table},
		{name: "sprio", args: []string{"sprio", "--pool", "research"}, out: table},
		{name: "sprio's short flags", args: []string{"sprio", "-p", "research", "-A", "ml", "-u", "bo"},
			out:    "JOB  USER  PROJECT  POOL  PRIORITY  AGE  FAIRSHARE  JOBSIZE  QOS  POOLFACTOR  NICE\n",
			errOut: "note: no job waits in a multifactor pool\n"},
		// The factors as numbers, as sprio -n and explain print them:
		// FAIRSHARE% 78.3% read as a share of the priority (trial
		// 2026-11-29i I11).
		{name: "wide", args: []string{"priorities", "-o", "wide"}, out: `JOB  USER  PROJECT  POOL      PRIORITY  AGE   FAIRSHARE  JOBSIZE  QOS  POOLFACTOR  NICE  NAME   NORM AGE  NORM FAIRSHARE  NORM JOBSIZE  NORM QOS  NORM POOLFACTOR
5    bo    nlp      research  83.33     5     78.33      0        5    0           0     asha   0.500     0.783           0.000         0.100     0.000
7    ana   vision   research  20.25     1.25  20         0        0    0           1     sweep  0.125     0.200           0.000         0.000     0.000
weights of research: age 10, fair share 100, job size 0, qos 50, pool 0
`},
		{name: "empty", args: []string{"priorities", "--project", "ml"},
			out:    "JOB  USER  PROJECT  POOL  PRIORITY  AGE  FAIRSHARE  JOBSIZE  QOS  POOLFACTOR  NICE\n",
			errOut: "note: no job waits in a multifactor pool\n"},
		{name: "json", args: []string{"priorities", "--project", "ml", "-o", "json"},
			out: "{\n  \"as_of\": \"2024-05-01T10:00:00Z\",\n  \"pools\": [\n    {\n      \"pool\": \"research\",\n      \"age\": 10,\n      \"fair_share\": 100,\n      \"job_size\": 0,\n      \"qos\": 50,\n      \"pool_weight\": 0\n    }\n  ],\n  \"jobs\": []\n}\n"},
		{name: "not multifactor", args: []string{"priorities", "--pool", "batch"},
			err: `master: 400 Bad Request: pool "batch" has policy fifo, not multifactor`},
		{name: "unknown pool", args: []string{"sprio", "--pool", "nosuch"},
			err: `pool "nosuch": no such pool (pools: research, batch)`},
		// For scripts, as allot usage -o csv (trial 2026-11-29j J11):
		// every column, full precision, no weights line.
		{name: "csv", args: []string{"priorities", "-o", "csv"},
			out: "JOB,USER,PROJECT,POOL,PRIORITY,AGE,FAIRSHARE,JOBSIZE,QOS,POOLFACTOR,NICE,NAME,NORM AGE,NORM FAIRSHARE,NORM JOBSIZE,NORM QOS,NORM POOLFACTOR\n" +
				"5,bo,nlp,research,83.33,5,78.333,0,5,0,0,asha,0.5,0.78333,0,0.1,0\n" +
				"7,ana,vision,research,20.25,1.25,20,0,0,0,1,sweep,0.125,0.2,0,0,0\n"},
		{name: "bad output", args: []string{"priorities", "-o", "xml"}, err: `--output: expected one of table, wide, json, yaml, csv, got "xml"`},
		{name: "arguments", args: []string{"priorities", "5"}, err: `unexpected argument "5"`},
	})
	for _, want := range []string{"GET /api/v1/priorities?pool=research", "GET /api/v1/priorities?project=ml"} {
		if !slices.Contains(f.requests, want) {
			t.Errorf("no request %q among %q", want, f.requests)
		}
	}
}
