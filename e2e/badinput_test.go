package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// badInputConfig has one pool and a project besides the default.
const badInputConfig = `
pools:
  - {name: default, policy: priority}
projects:
  - {name: default}
  - {name: vision}
`

// TestBadInput sends malformed job files through the CLI and malformed
// requests straight to the master's REST API: each gets a clear error
// naming the line or field, and nothing is submitted.
func TestBadInput(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterSpec{config: badInputConfig})
	t.Run("cli", func(t *testing.T) { badJobFiles(t, c.sub(t)) })
	t.Run("http", func(t *testing.T) { badRequests(t, c.sub(t)) })
	var jobs []api.Job
	c.cliJSON(&jobs, "jobs", "--all")
	if len(jobs) != 0 {
		t.Errorf("bad input created jobs: %v", jobs)
	}
}

func badJobFiles(t *testing.T, c *cluster) {
	cases := []struct {
		name, file string
		want       []string // substrings of stderr
	}{
		{"negative slots", "name: x\nentrypoint: \"true\"\nresources:\n  slots: -1\n",
			[]string{"negative-slots.yaml:4: resources.slots: expected an integer >= 0, got -1"}},
		{"typo", "name: x\nentrypont: \"true\"\n",
			[]string{`typo.yaml:2: unknown field "entrypont"; did you mean "entrypoint"?`, `missing required field "entrypoint"`}},
		{"yaml syntax", "name: x\nentrypoint: [unclosed\n", []string{"invalid YAML"}},
		{"empty", "", []string{"empty.yaml: empty file"}},
		{"string slots", "name: x\nentrypoint: \"true\"\nresources: {slots: \"8\", priority: 100}\n",
			[]string{`string-slots.yaml:3: resources.slots: expected an integer >= 0, got "8"`,
				"string-slots.yaml:3: resources.priority: expected an integer from 1 to 99, got 100"}},
		{"hyperparameters on a notebook", "name: x\nkind: notebook\nentrypoint: \"true\"\nhyperparameters:\n  lr: 0.1\n",
			[]string{"hyperparameters-on-a-notebook.yaml:5: hyperparameters: only experiments take hyperparameters"}},
		// Valid files the master refuses: the message names the field.
		{"unknown pool", "{name: x, entrypoint: \"true\", pool: tpu}",
			[]string{"400 Bad Request", "pool", `"tpu"`}},
		{"unknown project", "{name: x, entrypoint: \"true\", project: nope}",
			[]string{"400 Bad Request", "project", `"nope"`}},
	}
	lineRef := regexp.MustCompile(`\.yaml:\d+: `)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(c.dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			r := c.cli("submit", path)
			if r.code != 1 || r.stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit 1 and no job id", r.code, r.stdout)
			}
			for _, want := range tc.want {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if tc.name == "yaml syntax" && !lineRef.MatchString(r.stderr) {
				t.Errorf("the syntax error names no line:\n%s", r.stderr)
			}
			if strings.Contains(r.stderr, "panic") {
				t.Errorf("the CLI panicked:\n%s", r.stderr)
			}
		})
	}
}

// httpCase is one raw request and the error it must get.
type httpCase struct {
	name, method, path, body string
	status                   int
	field                    string   // api.Error.Field
	want                     []string // substrings of api.Error.Error
}

// noToken, as checkHTTPErrorAs's token, sends no Authorization header.
const noToken = "-"

func badRequests(t *testing.T, c *cluster) {
	huge := `{"name": "x", "entrypoint": "` + strings.Repeat("a", api.MaxBodyBytes) + `"}`
	cases := []httpCase{
		{"bad JSON", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": `, 400, "", []string{"JSON"}},
		{"not an object", "POST", "/api/v1/jobs", `[1, 2]`, 400, "", []string{"expected a mapping"}},
		{"empty body", "POST", "/api/v1/jobs", ``, 400, "", []string{"empty"}},
		// The job file parser names an unknown top-level field in its
		// message only (Field is the path of the object that has it).
		{"unknown field", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "true", "colour": "red"}`, 400, "colour",
			[]string{`unknown field "colour"`, "request body:1"}},
		{"unknown nested field", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "true", "resources": {"gpus": 2}}`, 400,
			"resources.gpus", []string{`unknown field "gpus"`}},
		{"negative slots", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "true", "resources": {"slots": -2}}`, 400,
			"resources.slots", []string{"resources.slots", "-2"}},
		{"fractional slots", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "true", "resources": {"slots": 2.5}}`, 400,
			"resources.slots", []string{"resources.slots"}},
		{"unknown pool", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "true", "pool": "tpu"}`, 400, "pool",
			[]string{`"tpu"`, "default"}},
		{"unknown project", "POST", "/api/v1/jobs", `{"name": "x", "entrypoint": "true", "project": "nope"}`, 400, "project",
			[]string{`"nope"`}},
		{"oversized body", "POST", "/api/v1/jobs", huge, 413, "", []string{"larger than"}},
		{"bad job id", "GET", "/api/v1/jobs/abc", ``, 400, "id", []string{`"abc"`}},
		{"missing job", "GET", "/api/v1/jobs/999", ``, 404, "id", []string{"999"}},
		{"kill a missing job", "POST", "/api/v1/jobs/999/kill", ``, 404, "id", []string{"999"}},
		{"bad state filter", "GET", "/api/v1/jobs?state=sleeping", ``, 400, "state", []string{`"sleeping"`}},
		{"unknown query parameter", "GET", "/api/v1/jobs?colour=red", ``, 400, "colour", []string{`"colour"`}},
		{"unknown endpoint", "GET", "/api/v1/gpus", ``, 404, "", []string{"/api/v1/gpus"}},
		{"register without a name", "POST", "/api/v1/agents/register", `{"name": "", "gpus": []}`, 400, "name",
			[]string{"name"}},
		{"register in an unknown pool", "POST", "/api/v1/agents/register",
			`{"name": "n1", "pool": "tpu", "gpus": [{"index": 0, "uuid": "u", "type": "h100", "memory_mib": 1}]}`, 400,
			"pool", []string{`"tpu"`}},
		{"sync of an unknown node", "POST", "/api/v1/agents/ghost/sync", `{"reports": [], "running": [], "wait_s": 0}`, 403,
			"", []string{"node credential"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkHTTPError(t, c, tc) })
	}
}

// checkHTTPError sends one request and checks its Error answer.
func checkHTTPError(t *testing.T, c *cluster, tc httpCase) { checkHTTPErrorAs(t, c, "", tc) }

// checkHTTPErrorAs sends the request with token: "" picks the cluster's
// join token for the agents' protocol and its admin token for the rest.
func checkHTTPErrorAs(t *testing.T, c *cluster, token string, tc httpCase) {
	req, err := http.NewRequest(tc.method, c.url+tc.path, strings.NewReader(tc.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	switch {
	case token == noToken:
		token = ""
	case token != "":
	case strings.HasPrefix(tc.path, "/api/v1/agents/"):
		token = c.join
	default:
		token = c.token
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != tc.status {
		t.Errorf("status %d, want %d; body %s", resp.StatusCode, tc.status, tail(buf.String(), 500))
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want JSON", ct)
	}
	var e api.Error
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("the answer is not an api.Error: %v", err)
	}
	if e.Field != tc.field {
		t.Errorf("field %q, want %q (error %q)", e.Field, tc.field, e.Error)
	}
	for _, want := range tc.want {
		if !strings.Contains(e.Error, want) {
			t.Errorf("error %q lacks %q", e.Error, want)
		}
	}
}
