package master

import "testing"

// Labels a node rule gives a node over its agent's, changed by a
// configuration reload or a master restarted on a changed file, with no
// registration (relabel.go): the history keeps the labels in effect
// before and after (store.NodeRelabeled), which the export writes as the
// node's labels when the window began and a node_reshape with the new
// ones (whatif_reshaped.go). A replay that read the labels under the
// rules in force at the end had them from the start.

// relabelPools puts n1 and n3 under switch s1 and n2 under s2;
// relabelPoolsS1 puts n2 under s1 too, and n2S3 under s3.
const (
	relabelPools   = "pools:\n  - {name: default, policy: fifo}\nnodes:\n  - {name: n1, labels: {switch: s1}}\n  - {name: n2, labels: {switch: s2}}\n  - {name: n3, labels: {switch: s1}}\n"
	relabelPoolsS1 = "pools:\n  - {name: default, policy: fifo}\nnodes:\n  - {name: n1, labels: {switch: s1}}\n  - {name: n2, labels: {switch: s1}}\n  - {name: n3, labels: {switch: s1}}\n"
	n2S3           = "pools:\n  - {name: default, policy: fifo}\nnodes:\n  - {name: n1, labels: {switch: s1}}\n  - {name: n2, labels: {switch: s3}}\n  - {name: n3, labels: {switch: s1}}\n"
)

// relabelNodes are of one size, as the nodes of a gang are.
var relabelNodes = []rnode{{"n1", 2}, {"n2", 2}, {"n3", 2}}

// relabelJobs: a holds a node under s1 until 300; g, a gang of 4 slots
// that must keep to one switch, needs the other, or it and n2 once the
// change at 100 puts n2 under s1 too: it starts then, not at a's end;
// w, behind it in the queue, waits for a slot, and g2, of 4 slots, for
// two nodes under one switch.
var relabelJobs = []rjob{
	{name: "a", slots: 2, submit: 0, run: 300},
	{name: "g", slots: 4, submit: 10, run: 200, extra: `, "topology": "required"`},
	{name: "w", slots: 1, submit: 20, run: 100},
	{name: "g2", slots: 4, submit: 260, run: 100, extra: `, "topology": "required"`},
}

// relabelCases: a reload at 100 puts n2 under s1 (and back under s2 at
// 250, while g runs there: it runs on); a restart at 100 on that file
// does it too, n2's labels in effect being in the history since the
// reloads at 50 and 60 put it under s3 and back (a restart records a
// change of labels only where the history has those in effect).
func relabelCases() []replayCase {
	return []replayCase{
		{name: "fifo-reload-relabels-node", config: relabelPools, nodes: relabelNodes, jobs: relabelJobs,
			reloads: []rreload{{at: 100, config: relabelPoolsS1}}},
		{name: "fifo-reload-relabels-node-and-back", config: relabelPools, nodes: relabelNodes, jobs: relabelJobs,
			reloads: []rreload{{at: 100, config: relabelPoolsS1}, {at: 250, config: relabelPools}}},
		{name: "fifo-restart-relabels-node", config: relabelPools, nodes: relabelNodes, jobs: relabelJobs,
			reloads: []rreload{{at: 50, config: n2S3}, {at: 60, config: relabelPools},
				{at: 100, config: relabelPoolsS1, restart: true}}},
	}
}

// TestReplayReloadRelabelsNode: the cases of relabelCases replay byte
// for byte, batched and live.
func TestReplayReloadRelabelsNode(t *testing.T) {
	checkBatchedAndLive(t, relabelCases())
}
