package config

import "fmt"

// QOSWarning says, of the configuration c read from path ("": none
// named), that its qos section lists a single level and no default_qos:
// the section replaces the built-in normal, high and emergency, and
// default_qos defaults to the first level, so every job that names no
// QOS gets that one. Meant as "add a high QOS", it made every job high
// (trial 2026-11-29j J9). "" when there is nothing to say: no section
// (the built-ins), several levels, none, or default_qos set, which says
// the single level is meant as everyone's. allot config check, the
// master's start and a reload say it (master.ConfigWarnings).
func QOSWarning(path string, c *Config) string {
	if c == nil || c.DefaultQOSSet || len(c.QOS) != 1 || c.QOS[0].Line == 0 {
		return ""
	}
	q := c.QOS[0]
	where := fmt.Sprintf("%s:%d", path, q.Line)
	if path == "" {
		where = fmt.Sprintf("line %d", q.Line)
	}
	return fmt.Sprintf("%s: qos: %s is the only level, so it is every job's QOS: the section replaces the built-in "+
		"normal, high and emergency, and default_qos, not set, is the first level; list the levels jobs that name none "+
		"should get first (- {name: normal}), or set default_qos: %s to keep it so", where, q.Name, q.Name)
}
