package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/allot-sched/allot/api"
)

// nodePath is the path of one node, its name escaped.
func nodePath(name string) string { return "/nodes/" + url.PathEscape(name) }

// DrainNode stops new tasks from starting on a node (admins); those
// running there finish. It returns the node, draining or drained.
func (c *Client) DrainNode(ctx context.Context, name, reason string) (api.Node, error) {
	var n api.Node
	err := c.tr.do(ctx, http.MethodPost, nodePath(name)+"/drain", nil, api.NodeDrainRequest{Reason: reason}, &n)
	return n, err
}

// ResumeNode makes a drained node schedulable again (admins).
func (c *Client) ResumeNode(ctx context.Context, name string) (api.Node, error) {
	var n api.Node
	err := c.tr.do(ctx, http.MethodPost, nodePath(name)+"/resume", nil, nil, &n)
	return n, err
}

// DeleteNode forgets a node on which nothing runs (admins).
func (c *Client) DeleteNode(ctx context.Context, name string) error {
	return c.tr.do(ctx, http.MethodDelete, nodePath(name), nil, nil, nil)
}
