// Package k8s makes Allot the scheduler for pods on a Kubernetes cluster.
//
// The scheduler watches nodes and pods through client-go informers. Each
// pass turns them into a sched.Snapshot (Snapshot), runs the same
// scheduling core as the master and the simulator, and acts on the plan
// (Plan): pods of started tasks are bound through the binding
// subresource, victims are evicted, and pods that keep waiting get a
// PodScheduled=False condition and a FailedScheduling event carrying
// Allot's reason, so that `kubectl describe pod` explains the wait. Nothing is kept between passes
// but bindings and evictions not yet seen by the informer (InFlight):
// after a restart the state is read back from the API server.
//
// Mapping:
//   - A node is a sched.Node whose slots are its allocatable nvidia.com/gpu.
//     Cordoned nodes and nodes that are not Ready are left out. The pool
//     comes from a node label (Config.PoolLabel), or every node is in one
//     pool. Its entry is made by the master's and the simulator's rules
//     (lifecycle.NodeFacts.Node): its zero-slot limit is its allocatable
//     pods, its switch its "switch" label (lifecycle.SwitchLabel), and a
//     node whose bound pods hold more GPUs than it has allocatable (a
//     device plugin restarting) has what they hold, full rather than
//     over-committed, which the core would refuse for the whole pass.
//   - A pod with spec.schedulerName equal to Config.SchedulerName is a job
//     of one task whose slots are its nvidia.com/gpu request. Its pool
//     comes from its nodeSelector on the pool label.
//   - A pod's whole nodeSelector, its required node affinity and its
//     tolerations (against NoSchedule and NoExecute taints; the keys in
//     Config.ToleratedTaints are tolerated by every pod) restrict it to
//     some of its pool's nodes, matched with k8s.io/component-helpers
//     (constraints.go). The core restricts a job only by GPU type, so
//     sched.Node.GPU carries a node class instead: nodes that every job
//     accepts alike share one (named by their GPU label where that names
//     it alone), and a job gets the class of its nodes, or "" when it may
//     use the whole pool. A job allowed on several classes is aimed, each
//     pass, at the one where most of its pods fit now (classes.go). A pod
//     no node allows waits with a reason counting the nodes each
//     constraint leaves.
//   - Pods sharing the coscheduling label pod-group.scheduling.sigs.k8s.io/name
//     in a namespace are one job of N tasks (a gang). The gang is bound only
//     once min-available of its pods (the label
//     pod-group.scheduling.sigs.k8s.io/min-available, default all) are
//     placed or already bound: all of a pass's starts for it, or none. A
//     gang the core places only in part is withdrawn and the pass planned
//     again, so its GPUs go to other pods (Plan).
//   - Pods labelled scheduling.x-k8s.io/pod-group are a gang whose minimum
//     is the minMember of that PodGroup object (scheduler-plugins' CRD),
//     read through a dynamic informer when the API server serves it
//     (podgroup.go).
//   - Every other pod bound to a node and not finished holds its GPUs as a
//     running allocation that the core never preempts.
//   - A pod's priority is its PriorityClass value, negated: Kubernetes runs
//     larger values first, the core smaller numbers.
//   - A pod's project (quota and fair_share pools, projects.go) is named by
//     its allot.dev/project label, else by the Config.Projects entry
//     listing its namespace, else DefaultProject. Pods of other schedulers
//     are in OtherProject. Under fair_share a project's shares are split
//     among its jobs as their weights.
//
// Preemption (evict.go): the plan's preemptions, and its moves (a bound
// pod cannot move), become evictions through the policy/v1 Eviction
// subresource with Config.PreemptionGrace as the grace period. A bound pod
// that is terminating, or whose eviction was posted, is a draining
// (Preempting) allocation: its GPUs are held until it is gone and it is
// never a victim again. A gang left below min-available is evicted whole.
// Controllers re-create their evicted pods, which queue again; bare pods
// are gone. The core has no per-job switch against preempting, so the
// preemptions and moves planned for a pod whose preemptionPolicy is Never
// are dropped (victims) and the pod waits, saying so.
//
// Leader election (leader.go): with Config.Leader.Enabled, replicas
// campaign for a coordination.k8s.io Lease and only the holder runs
// passes; informers run in every replica. A new leader waits until its
// informer shows every pod bound in a quorum read before its first pass.
// Elect, the campaign loop, is shared with package podagent's RunElected.
//
// A pod never spans nodes, so a pod asking for more GPUs than the largest
// node of its pool is never given to the core (which would place such a
// task on several nodes); it waits with a reason saying so.
//
// Package k8stest starts a real etcd and kube-apiserver for the tests.
package k8s
