package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/allot-sched/allot/api"
)

// PriorityFilter selects GET /priorities's jobs; empty fields select all.
type PriorityFilter struct {
	Pool, Project, User string
}

// Priorities lists the waiting jobs of the multifactor pools with their
// multifactor priority, factor by factor (Slurm's sprio), in queue order.
func (c *Client) Priorities(ctx context.Context, f PriorityFilter) (api.Priorities, error) {
	q := url.Values{}
	for k, v := range map[string]string{"pool": f.Pool, "project": f.Project, "user": f.User} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var out api.Priorities
	err := c.tr.do(ctx, http.MethodGet, "/priorities", q, nil, &out)
	return out, err
}
