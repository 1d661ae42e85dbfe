package client

import (
	"context"
	"encoding/json"
	"fmt"
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

// DeleteNode forgets a node on which nothing runs (admins); revoke also
// revokes the node's credentials, so that its agent cannot register
// again with them. A master from before the answer had a body (204)
// gives a DeletedNode with only the name.
func (c *Client) DeleteNode(ctx context.Context, name string, revoke bool) (api.DeletedNode, error) {
	var q url.Values
	if revoke {
		q = url.Values{"revoke": {"true"}}
	}
	var raw rawBody
	if err := c.tr.do(ctx, http.MethodDelete, nodePath(name), q, nil, &raw); err != nil {
		return api.DeletedNode{}, err
	}
	d := api.DeletedNode{Name: name}
	if len(raw) == 0 {
		return d, nil
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return api.DeletedNode{}, fmt.Errorf("decode the answer to deleting node %s: %w", name, err)
	}
	return d, nil
}
