package podagent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/allot-sched/allot/agent"
)

// Labels on the pods the backend makes. It finds its pods by them after a
// restart, so they are the pod's identity: the Allot node and the
// attempt's part.
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelNode      = "allot.dev/node"
	LabelJob       = "allot.dev/job"
	LabelTask      = "allot.dev/task"
	LabelAttempt   = "allot.dev/attempt"
	LabelRank      = "allot.dev/rank"
	// AnnotationStop records on a pod the stop Allot asked for (preempt
	// or kill) before it deletes the pod.
	AnnotationStop = "allot.dev/stop"
	// AnnotationLimited records on a pod that the backend stopped it at
	// its time limit, the master not having done so (timelimit.go), with
	// the words of its exit report.
	AnnotationLimited = "allot.dev/stopped-at-limit"
	// ManagedBy is LabelManagedBy's value.
	ManagedBy = "allot-k8s-agent"
	// MainContainer names the container Allot runs the entrypoint in
	// when the pod_spec has none of that name; otherwise the first
	// container is the main one.
	MainContainer = "allot"
)

// GPUResource is the extended resource of NVIDIA's device plugin.
const GPUResource v1.ResourceName = "nvidia.com/gpu"

// nvidiaDevices is the NVIDIA container runtime's choice of devices.
const nvidiaDevices = "NVIDIA_VISIBLE_DEVICES"

var jobIDRE = regexp.MustCompile(`^[0-9]{1,18}$`)

// podName is the attempt part's pod name. It is a function of the part
// alone, so that a repeated start, or one after a restart of the
// backend, finds the pod already there instead of making a second.
func podName(id agent.TaskID, rank int) string {
	return fmt.Sprintf("allot-%s-%d-%d-%d", id.JobID, id.TaskIndex, id.Attempt, rank)
}

// podTemplate is the part of a job's pod_spec that the backend reads.
type podTemplate struct {
	Metadata struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec v1.PodSpec `json:"spec"`
}

// buildPod makes the pod of one part of an attempt, on the node the
// master chose: the job's pod_spec with Allot's task merged in. The main
// container runs the entrypoint with the job's environment and the
// ALLOT_* variables, and gets the task's GPUs as its nvidia.com/gpu
// limit; the device plugin, not Allot, picks the devices, so
// CUDA_VISIBLE_DEVICES is left to it. The master has placed the task, so
// spec.nodeName is set and no Kubernetes scheduler is involved.
func buildPod(spec agent.TaskSpec, node, namespace, image string) (*v1.Pod, error) {
	if !jobIDRE.MatchString(spec.JobID) {
		return nil, fmt.Errorf("job id %q: expected a number, to name the pod", spec.JobID)
	}
	var tpl podTemplate
	if len(spec.PodSpec) > 0 {
		if err := json.Unmarshal(spec.PodSpec, &tpl); err != nil {
			return nil, fmt.Errorf("pod_spec: %w", err)
		}
	}
	ps := tpl.Spec
	main := mainContainer(&ps)
	if main == nil {
		if image == "" {
			return nil, fmt.Errorf("pod_spec has no container, and the backend has no default image (--image)")
		}
		ps.Containers = append(ps.Containers, v1.Container{Name: MainContainer, Image: image})
		main = &ps.Containers[len(ps.Containers)-1]
	}
	main.Command = []string{"/bin/sh", "-c", spec.Entrypoint}
	main.Args = nil
	main.Env = mergeEnv(main.Env, taskEnv(spec))
	setGPUs(main, len(spec.GPUs))
	if len(spec.GPUs) == 0 && !slices.ContainsFunc(main.Env, func(e v1.EnvVar) bool { return e.Name == nvidiaDevices }) {
		// CUDA images set NVIDIA_VISIBLE_DEVICES=all, which on a node
		// whose default runtime is NVIDIA's shows a pod without a GPU
		// limit every GPU; a zero-slot task must see none, as with the
		// process agent.
		main.Env = append(main.Env, v1.EnvVar{Name: nvidiaDevices, Value: "void"})
	}
	if ps.TerminationGracePeriodSeconds == nil && spec.KillGraceS != nil {
		// A kill deletes the pod with its own grace (stopPart): the
		// pool's kill_grace unless the job's pod_spec says otherwise.
		g := max(*spec.KillGraceS, 0)
		ps.TerminationGracePeriodSeconds = &g
	}
	ps.NodeName = node
	ps.RestartPolicy = v1.RestartPolicyNever
	labels := map[string]string{}
	for k, v := range tpl.Metadata.Labels {
		labels[k] = v
	}
	for k, v := range partLabels(node, spec.ID(), spec.NodeRank) {
		labels[k] = v
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: podName(spec.ID(), spec.NodeRank), Namespace: namespace,
			Labels: labels, Annotations: tpl.Metadata.Annotations},
		Spec: ps,
	}, nil
}

// partLabels are the labels that name a part's pod.
func partLabels(node string, id agent.TaskID, rank int) map[string]string {
	return map[string]string{
		LabelManagedBy: ManagedBy,
		LabelNode:      node,
		LabelJob:       id.JobID,
		LabelTask:      strconv.Itoa(id.TaskIndex),
		LabelAttempt:   strconv.Itoa(id.Attempt),
		LabelRank:      strconv.Itoa(rank),
	}
}

// partOf reads back what partLabels wrote; ok is false for a pod that
// is not one of the backend's.
func partOf(p *v1.Pod) (node string, id agent.TaskID, ok bool) {
	l := p.Labels
	if l[LabelManagedBy] != ManagedBy || l[LabelNode] == "" || !jobIDRE.MatchString(l[LabelJob]) {
		return "", id, false
	}
	task, err1 := strconv.Atoi(l[LabelTask])
	att, err2 := strconv.Atoi(l[LabelAttempt])
	if err1 != nil || err2 != nil {
		return "", id, false
	}
	return l[LabelNode], agent.TaskID{JobID: l[LabelJob], TaskIndex: task, Attempt: att}, true
}

// mainContainer is the container named MainContainer, else the first;
// nil when there is none.
func mainContainer(ps *v1.PodSpec) *v1.Container {
	for i := range ps.Containers {
		if ps.Containers[i].Name == MainContainer {
			return &ps.Containers[i]
		}
	}
	if len(ps.Containers) > 0 {
		return &ps.Containers[0]
	}
	return nil
}

// mainName is the main container's name in a pod the backend made.
func mainName(p *v1.Pod) string {
	if c := mainContainer(&p.Spec); c != nil {
		return c.Name
	}
	return MainContainer
}

// taskEnv is what the process agent sets for a task (agent/doc.go), less
// what only makes sense for a local process: the files under the work
// directory, and CUDA_VISIBLE_DEVICES (the device plugin's business).
func taskEnv(spec agent.TaskSpec) map[string]string {
	hp := string(spec.Hyperparameters)
	if hp == "" {
		hp = "{}"
	}
	env := map[string]string{
		"ALLOT_JOB_ID":        spec.JobID,
		"ALLOT_TASK_INDEX":    strconv.Itoa(spec.TaskIndex),
		"ALLOT_ATTEMPT":       strconv.Itoa(spec.Attempt),
		"ALLOT_RESTART_COUNT": strconv.Itoa(spec.RestartCount),
		"ALLOT_NODE_RANK":     strconv.Itoa(spec.NodeRank),
		"ALLOT_NUM_NODES":     strconv.Itoa(max(spec.NodeCount, 1)),
		"ALLOT_HPARAMS":       hp,
	}
	if spec.CheckpointDir != "" {
		env["ALLOT_CHECKPOINT_DIR"] = spec.CheckpointDir
	}
	if spec.MaxSteps > 0 {
		env["ALLOT_TRIAL_MAX_STEPS"] = strconv.FormatInt(spec.MaxSteps, 10)
	}
	for k, v := range spec.Env {
		env[k] = v
	}
	return env
}

// mergeEnv sets vars over the container's own variables: a name in both
// takes Allot's value, so that the task sees the job's environment as the
// process agent would give it.
func mergeEnv(own []v1.EnvVar, vars map[string]string) []v1.EnvVar {
	out := make([]v1.EnvVar, 0, len(own)+len(vars))
	for _, e := range own {
		if _, ok := vars[e.Name]; !ok {
			out = append(out, e)
		}
	}
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		out = append(out, v1.EnvVar{Name: k, Value: vars[k]})
	}
	return out
}

// setGPUs makes the container's nvidia.com/gpu request and limit the
// task's slots. A zero-slot task asks for none; the device plugin then
// exposes no GPU to it.
func setGPUs(c *v1.Container, n int) {
	if c.Resources.Limits == nil {
		c.Resources.Limits = v1.ResourceList{}
	}
	delete(c.Resources.Limits, GPUResource)
	delete(c.Resources.Requests, GPUResource)
	if n == 0 {
		return
	}
	q := *resource.NewQuantity(int64(n), resource.DecimalSI)
	c.Resources.Limits[GPUResource] = q
	if c.Resources.Requests != nil {
		c.Resources.Requests[GPUResource] = q
	}
}
