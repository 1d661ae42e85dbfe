package lifecycle

// WatchStates makes c's task records report every change of their State
// to f, from "" for a record just made (Tasks.set): tests check each
// against the graph (TaskEdge) without a cost to Step.
func WatchStates(c *Cluster, f func(t *Task, from, to TaskState)) { c.Tasks.watch = f }
