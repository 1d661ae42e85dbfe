package jobfile

import (
	"fmt"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/allot-sched/allot/agent/gpumodel"
	"github.com/allot-sched/allot/yamlfield"
)

// The value parsers here are the ones only job files have; the common ones
// (integers, durations, enums, ...) are in package yamlfield.

// maxNameBytes bounds names (job, project, pool).
const maxNameBytes = 128

// name accepts a non-empty name of at most maxNameBytes bytes with no
// control characters and no leading or trailing space.
func name(p *yamlfield.Parser, raw *yaml.Node, path string) (string, bool) {
	s, ok := yamlfield.Text(p, raw, path)
	if !ok {
		return "", false
	}
	if msg := checkName(s); msg != "" {
		p.Errorf(raw, path, "%s, got %s", msg, yamlfield.Quote(s))
		return "", false
	}
	return s, true
}

// gpuType accepts a GPU type as a name and reduces it by the agents' rule
// (gpumodel.Type), so that a type matches the nodes' whatever its case
// and however the model is spelled: H100, h100 and "NVIDIA H100 80GB
// HBM3" are all h100, as the agent on such a node reports it.
func gpuType(p *yamlfield.Parser, raw *yaml.Node, path string) (string, bool) {
	s, ok := name(p, raw, path)
	if !ok {
		return "", false
	}
	t := gpumodel.Type(s)
	if t == "unknown" && !strings.EqualFold(s, t) {
		p.Errorf(raw, path, "expected a GPU type such as h100 or a model name such as \"NVIDIA H100 80GB HBM3\", got %s", yamlfield.Quote(s))
		return "", false
	}
	return t, true
}

// checkName returns what is wrong with a name, or "".
func checkName(s string) string {
	switch {
	case s == "":
		return "expected a non-empty name"
	case len(s) > maxNameBytes:
		return fmt.Sprintf("expected a name of at most %d bytes", maxNameBytes)
	case strings.TrimSpace(s) != s:
		return "expected a name without leading or trailing spaces"
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "expected a name without control characters"
	}
	return ""
}
