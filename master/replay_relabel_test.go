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
// does it too, after reloads at 50 and 60 put n2 under s3 and back (a
// restart recorded a change of labels only where a relabel had put
// those in effect in the history, before registrations kept them:
// labelsInEffectCases).
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

// alikePools gives n2 the switch its agent has too (s1, with n1), and
// n3 another; alikeS3 puts n2 under s3 instead.
const (
	alikePools = "pools:\n  - {name: default, policy: fifo}\nnodes:\n  - {name: n1, labels: {switch: s1}}\n  - {name: n2, labels: {switch: s1}}\n  - {name: n3, labels: {switch: s2}}\n"
	alikeS3    = "pools:\n  - {name: default, policy: fifo}\nnodes:\n  - {name: n1, labels: {switch: s1}}\n  - {name: n2, labels: {switch: s3}}\n  - {name: n3, labels: {switch: s2}}\n"
)

// alikeJobs: g, a gang of 4 slots that must keep to one switch, needs n1
// and n2 under s1; w, behind it, a slot.
var alikeJobs = []rjob{
	{name: "g", slots: 4, submit: 40, run: 100, extra: `, "topology": "required"`},
	{name: "w", slots: 1, submit: 45, run: 50},
}

// labelsInEffectCases need the labels in effect that each registration
// records (store.Node.InEffect): with the agent's only, the rules were
// guessed from the relabels (ruleOver), and each failed:
//   - a restart at 100 on a file that puts n2 under s1, n2 never moved
//     or relabeled before: it is recorded (g starts then on n2 and n3),
//     where the export read n2 under s1 from the start;
//   - n2's agent has the rule's switch alike from 5, relabeled by the
//     reloads at 10 and 20, and drops it at 30: n2 stays under s1 by its
//     rule, and g starts on n1 and n2 at 40, where a restart at 100 on
//     the same file took n2's labels in effect for its agent's, none,
//     and recorded their change to s1 then;
//   - n2's agent has no labels until 30, then the rule's switch alike,
//     and a reload at 60 puts n2 under s3: n2 was under s1 by its rule
//     from the start, and g (here at 10) starts on n1 and n2 then,
//     where the export read n2's first registration under the rule the
//     reload's event implied, without the switch its agent had by then.
func labelsInEffectCases() []replayCase {
	s1, none := map[string]string{"switch": "s1"}, map[string]string{}
	early := []rjob{{name: "g", slots: 4, submit: 10, run: 100, extra: `, "topology": "required"`},
		{name: "w", slots: 1, submit: 15, run: 50}}
	return []replayCase{
		{name: "fifo-restart-relabels-node-first", config: relabelPools, nodes: relabelNodes, jobs: relabelJobs,
			reloads: []rreload{{at: 100, config: relabelPoolsS1, restart: true}}},
		{name: "fifo-restart-keeps-rule-label-agent-dropped", config: alikePools, nodes: relabelNodes, jobs: alikeJobs,
			reshapes: []rdown{{node: "n2", at: 5, labels: s1}, {node: "n2", at: 30, labels: none}},
			reloads:  []rreload{{at: 10, config: alikeS3}, {at: 20, config: alikePools}, {at: 100, config: alikePools, restart: true}}},
		{name: "fifo-reload-after-agent-takes-rule-label", config: alikePools, nodes: relabelNodes, jobs: early,
			reshapes: []rdown{{node: "n2", at: 30, labels: s1}},
			reloads:  []rreload{{at: 60, config: alikeS3}}},
	}
}

// TestReplayLabelsInEffect: the cases of labelsInEffectCases replay byte
// for byte, batched and live.
func TestReplayLabelsInEffect(t *testing.T) {
	checkBatchedAndLive(t, labelsInEffectCases())
}
