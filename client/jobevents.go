package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/allot-sched/allot/api"
)

// JobEvents reads a job's whole event log, oldest first, paging through
// the master's answers (at most 1000 events each).
func (c *Client) JobEvents(ctx context.Context, id int64) (api.JobEvents, error) {
	all := api.JobEvents{Job: id, Events: []api.JobEvent{}}
	var after int64
	for {
		q := url.Values{}
		if after > 0 {
			q.Set("after", strconv.FormatInt(after, 10))
		}
		var page api.JobEvents
		if err := c.tr.do(ctx, http.MethodGet, jobPath(id)+"/events", q, nil, &page); err != nil {
			return all, err
		}
		all.Events = append(all.Events, page.Events...)
		if !page.More || len(page.Events) == 0 {
			return all, nil
		}
		after = page.Events[len(page.Events)-1].Seq
	}
}
