package cli

import (
	"strings"
	"testing"
)

// TestAdminCommandsSayAdmins: every command the master answers only for
// admins says so in its one-line help, as allot --help and the group's
// --help list it, so that a member learns it before a 403.
func TestAdminCommandsSayAdmins(t *testing.T) {
	root := New()
	for _, path := range [][]string{
		{"audit"}, {"node"}, {"token"}, {"user"},
		{"config", "reload"}, {"history", "check"},
	} {
		t.Run(strings.Join(path, " "), func(t *testing.T) {
			cmd, rest, err := root.Find(path)
			if err != nil || len(rest) > 0 || cmd.Name() != path[len(path)-1] {
				t.Fatalf("allot %s not found (%v)", strings.Join(path, " "), err)
			}
			if !strings.Contains(cmd.Short, "(admins)") {
				t.Errorf("allot %s: short help %q does not say (admins)", strings.Join(path, " "), cmd.Short)
			}
		})
	}
}
