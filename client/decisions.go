package client

import (
	"context"

	"github.com/allot-sched/allot/api"
)

// HistoryDecisions reads the decisions the master made for the jobs
// submitted in w (admins; GET /history/decisions).
func (c *Client) HistoryDecisions(ctx context.Context, w Window) (api.DecisionLog, error) {
	var out api.DecisionLog
	err := c.tr.do(ctx, "GET", "/history/decisions", w.values(), nil, &out)
	return out, err
}
