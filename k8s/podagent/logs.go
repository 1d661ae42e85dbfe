package podagent

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/api"
)

// LogSource opens the output of a pod's container, following it until
// the container ends.
type LogSource interface {
	Open(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error)
}

// KubeletLogs reads logs through the API server's pods/log subresource,
// which the kubelet serves, with timestamps so that each line keeps the
// time it was written.
type KubeletLogs struct{ Client kubernetes.Interface }

// Open follows the container's output from its first line.
func (k KubeletLogs) Open(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error) {
	return k.Client.CoreV1().Pods(namespace).GetLogs(pod, &v1.PodLogOptions{Container: container, Follow: true, Timestamps: true}).Stream(ctx)
}

// logBatch is the most lines one post carries, as agentd's.
const logBatch = 1000

// follow streams a pod's main container output to the master, numbering
// lines from 1. After a restart the stream is read again from its first
// line with the same numbers, so the master stores each line once. done
// is closed when the stream has ended and its lines are delivered.
func (a *Agent) follow(ctx context.Context, node string, id agent.TaskID, p *v1.Pod, done chan struct{}) {
	defer a.wg.Done()
	defer close(done)
	var rc io.ReadCloser
	var err error
	// The kubelet may not serve a container's logs the moment it starts.
	for try := 0; try < 5 && ctx.Err() == nil; try++ {
		if rc, err = a.cfg.Logs.Open(ctx, p.Namespace, p.Name, mainName(p)); err == nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(try+1) * 500 * time.Millisecond):
		}
	}
	if rc == nil {
		a.log.Warn("cannot read the pod's logs", "pod", p.Name, "err", err)
		return
	}
	defer rc.Close()
	lines := make(chan api.AgentLogLine, logBatch)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(rc)
		sc.Buffer(make([]byte, 0, 64<<10), agent.MaxLineBytes+64)
		sc.Split(splitLines)
		seq := int64(0)
		for sc.Scan() {
			seq++
			at, text := stamp(sc.Text())
			select {
			case lines <- api.AgentLogLine{Task: id, Seq: seq, Time: at, Stream: "stdout", Text: text}:
			case <-ctx.Done():
				return
			}
		}
	}()
	for first := range lines {
		batch := []api.AgentLogLine{first}
	drain:
		for len(batch) < logBatch {
			select {
			case l, ok := <-lines:
				if !ok {
					break drain
				}
				batch = append(batch, l)
			default:
				break drain
			}
		}
		a.mu.Lock()
		l := a.links[node]
		a.mu.Unlock()
		if l == nil {
			continue // the node is gone; so is the attempt, as lost
		}
		if err := l.postLogs(ctx, batch); err != nil && ctx.Err() == nil {
			a.log.Warn("log lines dropped", "pod", p.Name, "lines", len(batch), "err", err)
		}
	}
}

// stamp splits the kubelet's RFC 3339 timestamp off a line; a line
// without one is stamped now.
func stamp(line string) (time.Time, string) {
	ts, rest, ok := strings.Cut(line, " ")
	if ok {
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			return t.UTC(), rest
		}
	}
	return time.Now().UTC(), line
}

// splitLines is bufio.ScanLines that cuts lines longer than
// agent.MaxLineBytes into several, as the process agent does, instead of
// failing the stream.
func splitLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 && i <= agent.MaxLineBytes {
		return i + 1, bytes.TrimSuffix(data[:i], []byte("\r")), nil
	}
	if len(data) >= agent.MaxLineBytes {
		return agent.MaxLineBytes, data[:agent.MaxLineBytes], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
