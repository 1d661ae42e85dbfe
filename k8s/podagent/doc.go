// Package podagent is the Kubernetes execution backend behind
// `allot k8s-agent`: the Determined model, where the master schedules and
// Kubernetes runs. It registers a cluster's nodes with the master as
// Allot nodes and runs the attempts the master starts on them as pods.
// (Package k8s is the other way round: Kubernetes' pods scheduled by
// Allot's core.)
//
// # Nodes
//
// Every node matching Config.NodeSelector is one Allot node of the same
// name, speaking the agent protocol of package api on its own link
// (link.go), with the same rules as agentd: register with the attempts
// running, long-poll sync, reports re-sent until acknowledged, commands
// idempotent. Its slots are its allocatable nvidia.com/gpu, numbered
// 0..N-1: the device plugin picks the devices, so the indexes the master
// assigns are only a count here. A change of GPU count or pool registers
// the node again; a deleted node stops syncing and the master ends what
// ran there as lost. The master issues each node a credential at its
// first registration (with the join token); the credentials are kept in
// one Secret so that a restarted backend registers without a token.
//
// A node that is cordoned, not Ready, being deleted or carrying a
// NoSchedule or NoExecute taint outside Config.ToleratedTaints registers
// with no GPUs (nodes.go): the agent protocol has no drain an agent may
// ask for, and a node of no GPUs gets no new slot task, while the master
// keeps the slots of the tasks running there held (it never schedules a
// node as smaller than what runs on it), so they run on. Once usable, the
// node registers its GPUs again.
//
// # Pods
//
// A start becomes a pod named allot-JOB-TASK-ATTEMPT-RANK, built from the
// job's pod_spec (jobfile validates it) with Allot's task merged in
// (pod.go): spec.nodeName is the node the master chose, restartPolicy is
// Never (the master retries), the main container (named "allot", else
// the first) runs /bin/sh -c ENTRYPOINT with the job's environment and
// the ALLOT_* variables over its own, and asks for the task's slots as
// its nvidia.com/gpu request and limit (a zero-slot task gets
// NVIDIA_VISIBLE_DEVICES=void, so that it sees no GPU). Labels name the node, job, task,
// attempt and rank. The name is a function of the part, so a repeated
// start or a start after a restart finds the pod instead of making
// another.
//
// The master places a job by pool and GPU type only (jobfile sets the
// type from a pod_spec selecting nvidia.com/gpu.product), and nothing in
// Kubernetes checks a pod that names its node, so before making the pod
// the agent checks the pod_spec's nodeSelector, required node affinity
// and tolerations against the node (constraints.go): a node breaking one
// fails the attempt, naming the rule and the node, with no pod made.
//
// The pod is reported running once created. When its phase is Succeeded
// or Failed, the main container's exit code ends the attempt (completed
// or failed), with the pod's or container's reason (Evicted, OOMKilled)
// in the report's error; a pod deleted by someone else fails the
// attempt. A pod whose container can never start (InvalidImageName,
// CreateContainerConfigError) fails the attempt at once; one still
// Pending Config.StartTimeout after its creation (an image pull
// back-off, a volume that does not mount) fails it with what it waits
// for (startOverdue). A preempt is a delete with the master's grace as
// gracePeriodSeconds, a kill a delete with the pod's own
// terminationGracePeriodSeconds (the job's pod_spec's, else the pool's
// kill_grace, agent.TaskSpec.KillGraceS, set when the pod is made): the
// kubelet sends SIGTERM, the
// checkpoint request of the preemption protocol, and SIGKILL at the
// deadline; the attempt then ends preempted or killed, whatever the exit
// code. Once the master has acknowledged a pod's exit report, the pod is
// deleted.
//
// The backend also applies the master's time limits when the master
// cannot (package backstop, timelimit.go): a pod whose deadline passed
// Config.LimitSlack ago, with no stop of the master's, is marked
// (AnnotationLimited) and deleted as a kill, and its exit report says
// api.Report.StoppedAtLimit.
//
// # Logs
//
// Once the main container runs, its output is followed through
// LogSource (by default pods/log with follow and timestamps), numbered
// from 1 per part and posted in batches. The exit report waits for the
// stream's end (at most Config.LogWait), so a closed attempt has its
// logs. The stream merges stdout and stderr; every line is sent as
// stdout. The test API server has no kubelet to serve logs, so the tests
// inject a LogSource.
//
// # Restarts
//
// Pods outlive the backend. A new process lists the pods labelled as
// its own, adopts them before any node registers (so each registration
// lists them as running), and follows them from their current state: an
// ended pod is reported at once. Logs are read again from the first
// line with the same numbers, and the master stores each line once. No
// sync goes out before this process has registered the node, since the
// master counts acknowledgements per registration. A stop asked before
// the restart is recorded on the pod (annotation allot.dev/stop) before
// the delete, so the adopted pod still ends preempted or killed. A pod
// removed while no backend ran leaves no trace: the master, not seeing
// it listed, ends its attempt as lost.
//
// RunElected runs one backend among replicas: only the holder of a
// coordination.k8s.io Lease (k8s.Elect) runs an Agent, a fresh one each
// term, which adopts the pods as a restarted process does.
package podagent
