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

// WrongKind reports, at the first such key, that the mapping f (a file's
// top level) looks like the first of kinds whose keys it has, and says
// what the caller reads instead (reads: "allot sim reads a scenario:
// ..."). It reports whether it did, when the caller should read no
// further.
func WrongKind(f *Fields, reads string, kinds ...FileKind) bool {
	for _, k := range kinds {
		var keys []string
		for _, key := range k.Keys {
			if f.Node(key) != nil {
				keys = append(keys, key)
			}
		}
		if len(keys) > 0 {
			f.Errorf(keys[0], "this looks like %s (it has %s), %s; %s", k.What, strings.Join(keys, ", "), k.ReadBy, reads)
			return true
		}
	}
	return false
}
