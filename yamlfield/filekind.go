package yamlfield

import "strings"

// FileKind is one of the YAML files this module reads, told by the
// top-level keys that only it has, so that a file given to a command
// that reads another kind is named for what it looks like, once, rather
// than reported field by field (its required fields missing, each of its
// own unknown, a "did you mean" that misleads). The one table of those
// keys: each format's parser asks WrongKind about the others.
type FileKind struct {
	// What names the kind ("a scenario file"); ReadBy says what reads it
	// ("which allot sim reads").
	What, ReadBy string
	// Keys are the top-level keys that only this kind has, in the
	// order an error lists them.
	Keys []string
}

// The kinds of file, for WrongKind.
var (
	// ConfigFile is the master's configuration (package config): the
	// keys of it that no scenario or job file has.
	ConfigFile = FileKind{What: "the master's configuration file",
		ReadBy: "which allot master --config reads and allot config check checks",
		Keys:   []string{"default_pool", "default_project", "agent_timeout", "max_node_gpus", "history_retention", "users", "default_qos"}}
	// ScenarioFile is a simulator scenario (package scenario).
	ScenarioFile = FileKind{What: "a scenario file", ReadBy: "which allot sim reads",
		Keys: []string{"jobs", "events", "accounts", "epoch"}}
	// JobFile is a job file (package jobfile).
	JobFile = FileKind{What: "a job file", ReadBy: "which allot submit reads (allot submit FILE --dry-run checks one)",
		Keys: []string{"entrypoint", "resources", "searcher", "hyperparameters", "environment"}}
)

// WrongKind reports, at the line of the first such key, that the
// mapping f (a file's top level) looks like the first of kinds whose keys
// it has, and says what the caller reads instead (reads: "allot sim reads
// a scenario: ..."). A file that has any of own's keys is of the kind
// expected, with a stray key, so it says nothing then: the caller's
// unknown-field error, with its "did you mean", fits better (trial
// 2026-11-29h H4: a scenario with jobs and a default_qos copied from a
// config is no config). It reports whether it did, when the caller should
// read no further.
func WrongKind(f *Fields, own FileKind, reads string, kinds ...FileKind) bool {
	if len(present(f, own)) > 0 {
		return false
	}
	for _, k := range kinds {
		if keys := present(f, k); len(keys) > 0 {
			f.p.ErrorAt(f.KeyLine(keys[0]), f.p.Join(f.Path, keys[0]), nil,
				"this looks like %s (it has %s), %s; %s", k.What, strings.Join(keys, ", "), k.ReadBy, reads)
			return true
		}
	}
	return false
}

// present returns those of k's keys that f has, in k's order.
func present(f *Fields, k FileKind) []string {
	var keys []string
	for _, key := range k.Keys {
		if f.Node(key) != nil {
			keys = append(keys, key)
		}
	}
	return keys
}
