package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/allot-sched/allot/agent/gpumodel"
)

// GPU is one GPU of the node.
type GPU struct {
	Index     int    `json:"index"`      // nvidia-smi's index, the number CUDA_VISIBLE_DEVICES uses
	UUID      string `json:"uuid"`       // e.g. GPU-8a1b...; stable across reboots
	Name      string `json:"name"`       // e.g. "NVIDIA H100 80GB HBM3"
	MemoryMiB int64  `json:"memory_mib"` // 0 when nvidia-smi cannot tell
	Type      string `json:"type"`       // short lower-case type, e.g. "h100"; see GPUType
}

// ErrNoNvidiaSMI is returned (wrapped) by Detect when nvidia-smi is not in
// PATH: the node has no NVIDIA driver, and the caller may fall back to a
// declared fake inventory.
var ErrNoNvidiaSMI = errors.New("no nvidia-smi in PATH")

// smiArgs is the query whose output ParseNvidiaSMI reads.
var smiArgs = []string{"--query-gpu=index,uuid,name,memory.total", "--format=csv,noheader"}

// Detect lists the node's GPUs by running nvidia-smi. Without nvidia-smi
// it returns an error wrapping ErrNoNvidiaSMI; when nvidia-smi is there but
// fails (no driver loaded, no devices), the error quotes its output, and
// the caller should not fall back to fake GPUs on a machine that may have
// real ones.
func Detect(ctx context.Context) ([]GPU, error) {
	path, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil, fmt.Errorf("detect GPUs: %w", ErrNoNvidiaSMI)
	}
	cmd := exec.CommandContext(ctx, path, smiArgs...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String() + " " + stdout.String())
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		if msg != "" {
			return nil, fmt.Errorf("detect GPUs: %s: %w: %s", path, err, msg)
		}
		return nil, fmt.Errorf("detect GPUs: %s: %w", path, err)
	}
	gpus, err := ParseNvidiaSMI(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("detect GPUs: %w", err)
	}
	return gpus, nil
}

// ParseNvidiaSMI parses the output of
//
//	nvidia-smi --query-gpu=index,uuid,name,memory.total --format=csv,noheader
//
// one GPU a line, such as "0, GPU-8a1b..., NVIDIA H100 80GB HBM3, 81559 MiB".
// Memory may also be a bare number (nounits) or "[N/A]" (MemoryMiB 0).
// Blank lines are skipped. Output with no GPU, a malformed line, or a
// repeated index or UUID is an error naming the line.
func ParseNvidiaSMI(out []byte) ([]GPU, error) {
	if !utf8.Valid(out) {
		return nil, errors.New("nvidia-smi output is not UTF-8 text")
	}
	var gpus []GPU
	indexes := map[int]int{}
	uuids := map[string]int{}
	for i, raw := range strings.Split(string(out), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		n := i + 1
		g, err := parseSMILine(line)
		if err != nil {
			return nil, fmt.Errorf("nvidia-smi output line %d: %w (the line is %q)", n, err, shorten(line))
		}
		if first, dup := indexes[g.Index]; dup {
			return nil, fmt.Errorf("nvidia-smi output line %d: index %d repeats line %d", n, g.Index, first)
		}
		if first, dup := uuids[g.UUID]; dup {
			return nil, fmt.Errorf("nvidia-smi output line %d: uuid %s repeats line %d", n, g.UUID, first)
		}
		indexes[g.Index], uuids[g.UUID] = n, n
		gpus = append(gpus, g)
	}
	if len(gpus) == 0 {
		return nil, errors.New("nvidia-smi listed no GPUs")
	}
	return gpus, nil
}

func parseSMILine(line string) (GPU, error) {
	parts := strings.Split(line, ",")
	if len(parts) < 4 {
		return GPU{}, fmt.Errorf("expected 4 comma-separated fields (index, uuid, name, memory.total), got %d", len(parts))
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	var g GPU
	idx, err := strconv.Atoi(parts[0])
	if err != nil || idx < 0 {
		return g, fmt.Errorf("index: expected an integer >= 0, got %q", shorten(parts[0]))
	}
	g.Index = idx
	g.UUID = parts[1]
	if g.UUID == "" || strings.ContainsAny(g.UUID, " \t") || strings.HasPrefix(g.UUID, "[") {
		return g, fmt.Errorf("uuid: expected an id like GPU-8a1b..., got %q", shorten(g.UUID))
	}
	// A name may hold commas; memory is always the last field.
	g.Name = strings.Join(parts[2:len(parts)-1], ", ")
	if g.Name == "" {
		return g, errors.New("name: empty")
	}
	mem := parts[len(parts)-1]
	switch {
	case mem == "[N/A]" || mem == "[Not Supported]" || mem == "[Unknown Error]":
	default:
		num := strings.TrimSpace(strings.TrimSuffix(mem, "MiB"))
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil || v < 0 {
			return g, fmt.Errorf("memory.total: expected MiB like \"81559 MiB\", got %q", shorten(mem))
		}
		g.MemoryMiB = v
	}
	g.Type = GPUType(g.Name)
	return g, nil
}

// shorten cuts s for messages.
func shorten(s string) string {
	if len(s) <= 80 {
		return s
	}
	cut := 80
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// nonWord is a run of characters a GPU type does not keep.
var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// GPUType derives the short type used in pools and job constraints from a
// GPU's marketing name; the rule is gpumodel.Type's.
func GPUType(name string) string { return gpumodel.Type(name) }

// fakeMemory is the memory of the fake GPUs of a few common types.
var fakeMemory = map[string]int64{
	"h100": 81559, "h200": 143771, "a100": 81920, "l40s": 46068, "a10g": 23028, "t4": 15360, "v100": 32768, "b200": 183359,
}

// Fake returns a declared inventory of n GPUs of gpuType (reduced by
// GPUType's rule, as a detected GPU's name is and a job's resources.gpu,
// so --gpu-type H100 is h100; "fake" when empty) with indexes 0..n-1,
// for development and tests. UUIDs are stable, GPU-fake-<type>-<index>,
// and unique within the node but not across nodes. MemoryMiB is that of
// the real part for common types, else 0. Fake(0, ...) is empty.
func Fake(n int, gpuType string) []GPU {
	t := "fake"
	if strings.Trim(nonWord.ReplaceAllString(strings.ToLower(gpuType), "-"), "-") != "" {
		t = GPUType(gpuType)
	}
	gpus := make([]GPU, 0, max(n, 0))
	for i := range max(n, 0) {
		gpus = append(gpus, GPU{
			Index:     i,
			UUID:      fmt.Sprintf("GPU-fake-%s-%04d", t, i),
			Name:      "Fake " + strings.ToUpper(t),
			MemoryMiB: fakeMemory[t],
			Type:      t,
		})
	}
	return gpus
}
