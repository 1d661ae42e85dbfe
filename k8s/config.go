package k8s

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/allot-sched/allot/sched"
)

// Well-known names the scheduler reads.
const (
	// ResourceGPU is the extended resource the NVIDIA device plugin
	// advertises; its allocatable count is a node's slots.
	ResourceGPU v1.ResourceName = "nvidia.com/gpu"
	// LabelPodGroup and LabelMinAvailable are the coscheduling plugin's
	// labels (seed 001) that make pods one gang.
	LabelPodGroup     = "pod-group.scheduling.sigs.k8s.io/name"
	LabelMinAvailable = "pod-group.scheduling.sigs.k8s.io/min-available"
	// LabelPodGroupCR names the PodGroup object (scheduler-plugins'
	// scheduling.x-k8s.io/v1alpha1) whose spec.minMember makes pods a gang.
	LabelPodGroupCR = "scheduling.x-k8s.io/pod-group"
	// LabelPreemptible set to "false" keeps a pod from being a victim.
	LabelPreemptible = "allot.dev/preemptible"
	// DefaultPool names the pool of nodes and pods without a pool label.
	DefaultPool = "default"
	// DefaultProject takes the pods of namespaces no project lists.
	DefaultProject = "default"
)

// Config says which pods are Allot's and how nodes are grouped.
type Config struct {
	// SchedulerName is the spec.schedulerName of the pods Allot schedules.
	SchedulerName string
	// PoolLabel is the node label whose values are pools, and the
	// nodeSelector key by which a pod picks one; "" puts every node in
	// one pool.
	PoolLabel string
	// GPULabel is the node label naming the GPU type; a pod's nodeSelector
	// on it restricts the pod to that type.
	GPULabel string
	// ToleratedTaints are taint keys every pod is taken to tolerate: GPU
	// nodes commonly carry nvidia.com/gpu:NoSchedule, which the
	// ExtendedResourceToleration admission plugin, where enabled, adds to
	// GPU pods. Other NoSchedule and NoExecute taints keep off the pods
	// whose own tolerations do not tolerate them.
	ToleratedTaints []string
	// Pool is the policy every pool runs; its Name is ignored.
	Pool sched.Pool
	// PreemptionGrace is the grace period an evicted pod gets to
	// checkpoint and stop (DeleteOptions.GracePeriodSeconds).
	PreemptionGrace time.Duration
	// Projects map namespaces (or the allot.dev/project label) to the
	// projects of quota and fair_share pools; other policies ignore them.
	Projects []Project
	// Leader configures leader election among replicas.
	Leader LeaderElection
}

// DefaultConfig is a single pool under priority order with backfill, so a
// large waiting pod does not hold back small ones indefinitely, and with
// preemption, as kube-scheduler preempts by PriorityClass too.
func DefaultConfig() Config {
	return Config{
		SchedulerName:   "allot",
		GPULabel:        "nvidia.com/gpu.product",
		ToleratedTaints: []string{string(ResourceGPU)},
		Pool: sched.Pool{Policy: sched.PolicyPriority, Backfill: true, Preemption: true,
			Placement: sched.PlaceBinpack},
		PreemptionGrace: 30 * time.Second,
		Leader:          DefaultLeaderElection(),
	}
}
