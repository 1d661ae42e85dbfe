package master

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestSubmitNamesErrorsTogether (trial 29e E9): the master's checks of a
// job file's names answer every error at once, each with its field
// (errors, the first also as error and field), where they answered the
// first alone; a user who is no admin, refused a project by the users:
// section, is told to ask an admin for the change, which an admin is
// told to make.
func TestSubmitNamesErrorsTogether(t *testing.T) {
	cfg := mustConfig(t, `
default_project: vision
pools:
  - {name: default, policy: fifo}
  - {name: batch, policy: fifo}
projects:
  - name: vision
  - name: nlp
licenses: {matlab: 2}
users:
  - name: ann
    projects: [vision]
  - name: root
    projects: [vision]
`)
	tests := []struct {
		name   string
		user   string // "" for the admin
		body   string
		status int
		fields []string // errors' fields; one alone: no list
		says   []string
		not    []string
	}{
		{"a pool and a project", "ann", `"pool": "qq", "project": "teamz"`, 400, []string{"pool", "project"},
			[]string{`unknown pool "qq"`, `unknown project "teamz"`}, nil},
		{"a QOS and two licenses", "ann", `"resources": {"qos": "urgent", "licenses": {"ansys": 1, "matlab": 1, "comsol": 1}}`, 400,
			[]string{"resources.qos", "resources.licenses.ansys", "resources.licenses.comsol"},
			[]string{"resources.qos: ", "resources.licenses.ansys: ", "resources.licenses.comsol: "}, nil},
		{"a pool and a project refused: a 400 with both", "ann", `"pool": "qq", "project": "nlp"`, 400, []string{"pool", "project"},
			[]string{`unknown pool "qq"`, "restricts ann to vision", "ask an admin to add nlp to ann's projects there and reload the configuration"}, nil},
		{"one error: no list", "ann", `"pool": "qq"`, 400, []string{"pool"}, []string{`unknown pool "qq"`}, nil},
		{"a project refused to a user", "ann", `"project": "nlp"`, 403, []string{"project"},
			[]string{"ask an admin to add nlp to ann's projects there and reload the configuration (allot config reload)"}, nil},
		{"a project refused to an admin", "", `"project": "nlp"`, 403, []string{"project"},
			[]string{"restricts root to vision", "; add nlp to root's projects there and reload the configuration (allot config reload)"},
			[]string{"ask an admin"}},
	}
	h := newHarness(t, withConfig(cfg))
	tokens := map[string]string{"": h.admin, "ann": h.as("ann", "vision=member", "nlp=member")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e api.Error
			body := `{"name": "x", "entrypoint": "e", ` + tt.body + `}`
			if code := h.doAs(tokens[tt.user], "POST", "/api/v1/jobs", body, &e); code != tt.status {
				t.Fatalf("submit: %d %+v, want %d", code, e, tt.status)
			}
			var fields []string
			all := e.Error
			for _, fe := range e.Errors {
				fields, all = append(fields, fe.Field), all+"\n"+fe.Error
			}
			if len(tt.fields) == 1 {
				if len(e.Errors) != 0 || e.Field != tt.fields[0] {
					t.Fatalf("error %+v: want one, of field %s, and no list", e, tt.fields[0])
				}
			} else if strings.Join(fields, ",") != strings.Join(tt.fields, ",") || e.Field != tt.fields[0] ||
				e.Error != e.Errors[0].Error {
				t.Fatalf("error %+v: want fields %v, the first as error and field", e, tt.fields)
			}
			checkSays(t, "errors", all, tt.says, tt.not)
		})
	}
}
