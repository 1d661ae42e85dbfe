package api

import "time"

// DecisionLog is GET /history/decisions: the scheduling decisions the
// master made for the jobs submitted in [Since, Until), each a line of
// the canonical decision log (package decisionlog: "SECONDS KIND JOB
// task=N attempt=N nodes=NODE:SLOTS how=END", seconds counted from
// Since), as of At, the time of the request. A replay of GET
// /history/scenario over the same window through the simulator writes
// the same lines for what happened before At (allot history check).
type DecisionLog struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	At    time.Time `json:"at"`
	Lines []string  `json:"lines"`
}
