package api

import "time"

// Priorities answers GET /priorities: every waiting job of the
// multifactor pools with its multifactor priority, factor by factor, as
// Slurm's sprio shows them (the pools in configuration order, each
// pool's jobs in queue order, first first), and each pool's weights.
type Priorities struct {
	AsOf  time.Time     `json:"as_of"`
	Pools []PoolWeights `json:"pools"`
	Jobs  []JobPriority `json:"jobs"`
}

// PoolWeights are a multifactor pool's weights: a job's weighted part of
// a factor is the factor (0..1) times its weight.
type PoolWeights struct {
	Pool      string  `json:"pool"`
	Age       float64 `json:"age"`
	FairShare float64 `json:"fair_share"`
	JobSize   float64 `json:"job_size"`
	QOS       float64 `json:"qos"`
	PoolW     float64 `json:"pool_weight"`
}

// JobPriority is one waiting job's priority: Factors are the factors
// before their weights (0..1), Weighted each factor times its weight;
// Priority is the sum of the weighted parts less the nice value.
type JobPriority struct {
	ID       int64   `json:"id"`
	Name     string  `json:"name"`
	User     string  `json:"user"`
	Project  string  `json:"project"`
	Pool     string  `json:"pool"`
	Position int     `json:"position"`
	Priority float64 `json:"priority"`
	Factors  Factors `json:"factors"`
	Weighted Factors `json:"weighted"`
}
