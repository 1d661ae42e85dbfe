package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

const authConfig = `
agent_timeout: 20s
pools:
  - {name: default, policy: fifo}
projects:
  - {name: default}
  - {name: vision}
  - {name: nlp}
`

// TestAuth runs the identity model against a real master and agent, on
// SQLite and PostgreSQL: every refusal of docs/security.md, and the
// legitimate paths beside them.
func TestAuth(t *testing.T) {
	t.Parallel()
	for _, db := range []struct {
		name     string
		postgres bool
	}{{"sqlite", false}, {"postgres", true}} {
		t.Run(db.name, func(t *testing.T) {
			c := newCluster(t, clusterSpec{config: authConfig, postgres: db.postgres,
				agents:     []agentSpec{{name: "node-1", pool: "default", gpus: 2}},
				masterArgs: []string{"--read-timeout", "2s", "--max-conns", "64"}})
			users := makeUsers(t, c)
			t.Run("users", func(t *testing.T) { userRefusals(t, c, users) })
			t.Run("agents", func(t *testing.T) { agentRefusals(t, c, users) })
			t.Run("slow bodies", func(t *testing.T) { slowBodies(t, c) })
		})
	}
}

// makeUsers creates users with the CLI, as an admin would, and returns
// their tokens by name.
func makeUsers(t *testing.T, c *cluster) map[string]string {
	tokens := map[string]string{}
	for _, u := range []struct{ name, role string }{
		{"alice", "vision=member"}, {"bob", "nlp=member"}, {"vic", "vision=viewer"}, {"lena", "vision=lead"},
	} {
		c.cliOK("user", "create", u.name, "--role", u.role)
		out := c.cliOK("token", "create", "--user", u.name, "--note", "e2e")
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "allot_u_") {
				tokens[u.name] = line
			}
		}
		if tokens[u.name] == "" {
			t.Fatalf("allot token create printed no token:\n%s", out)
		}
	}
	if r := c.as(tokens["alice"]).cli("user", "create", "mallory", "--admin"); r.code != 1 || !strings.Contains(r.stderr, "403") {
		t.Fatalf("a member created a user: exit %d, %s", r.code, r.stderr)
	}
	return tokens
}

func userRefusals(t *testing.T, c *cluster, tokens map[string]string) {
	alice, bob, vic, lena := c.as(tokens["alice"]), c.as(tokens["bob"]), c.as(tokens["vic"]), c.as(tokens["lena"])

	// Without a token nothing but /healthz and /metrics answers.
	checkHTTPErrorAs(t, c, noToken, httpCase{"no token", "GET", "/api/v1/jobs", "", 401, "", []string{"allot login"}})
	checkHTTPErrorAs(t, c, "allot_u_forged", httpCase{"forged token", "GET", "/api/v1/nodes", "", 401, "", []string{"not known"}})
	if r := runCLI(t, c.url, c.marker, t.TempDir(), "", "jobs"); r.code != 1 || !strings.Contains(r.stderr, "401") {
		t.Errorf("allot jobs without a login: exit %d, stderr %s", r.code, r.stderr)
	}
	for _, path := range []string{"/healthz", "/metrics"} {
		if code := statusOf(t, c, "", "GET", path, ""); code != 200 {
			t.Errorf("GET %s without a token: %d, want 200", path, code)
		}
	}

	// allot login saves the token; later commands use it.
	home := t.TempDir()
	tokFile := filepath.Join(home, "token")
	os.WriteFile(tokFile, []byte(tokens["alice"]+"\n"), 0o600)
	if r := runCLI(t, c.url, c.marker, home, "", "login", "--token-file", tokFile); r.code != 0 || !strings.Contains(r.stdout, "as alice") {
		t.Fatalf("allot login: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, c.url, c.marker, home, "", "whoami"); r.code != 0 || !strings.Contains(r.stdout, "member in vision") {
		t.Errorf("allot whoami after login: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if st, err := os.Stat(filepath.Join(home, "credentials.json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("credentials file: %v, %v; want mode 0600", st, err)
	}

	// A job records who submitted it; nobody else can claim it.
	id := alice.submit("mine", `{name: mine, project: vision, entrypoint: "sleep 60", resources: {slots: 1}}`)
	if j := alice.show(id); j.User != "alice" || j.Project != "vision" {
		t.Fatalf("job %d: user %q project %q, want alice in vision", id, j.User, j.Project)
	}
	claim, _ := http.NewRequest("POST", c.url+"/api/v1/jobs", strings.NewReader(`{"name": "x", "entrypoint": "true", "project": "vision"}`))
	claim.Header.Set("Authorization", "Bearer "+tokens["alice"])
	claim.Header.Set("X-Allot-User", "bob")
	if resp, err := http.DefaultClient.Do(claim); err != nil || resp.StatusCode != 403 {
		t.Errorf("alice submitting as bob: %v, %v; want 403", resp, err)
	} else {
		resp.Body.Close()
	}
	if r := alice.cli("submit", writeJob(t, `{name: elsewhere, project: nlp, entrypoint: "true"}`)); r.code != 1 ||
		!strings.Contains(r.stderr, `project "nlp" needs the member or lead role`) {
		t.Errorf("alice submitting to nlp: exit %d, %s", r.code, r.stderr)
	}

	// Another project's member can neither see, change, kill nor read it.
	sid := strconv.FormatInt(id, 10)
	for _, tc := range []httpCase{
		{"read another project's job", "GET", "/api/v1/jobs/" + sid, "", 403, "", []string{`project "vision"`}},
		{"read its logs", "GET", "/api/v1/jobs/" + sid + "/logs", "", 403, "", []string{"vision"}},
		{"kill it", "POST", "/api/v1/jobs/" + sid + "/kill", "", 403, "", []string{"lead role"}},
		{"re-prioritise it", "PATCH", "/api/v1/jobs/" + sid, `{"priority": 10}`, 403, "", []string{"lead role"}},
		{"reload the config", "POST", "/api/v1/config/reload", "", 403, "", []string{"admin"}},
		{"read the audit log", "GET", "/api/v1/audit", "", 403, "", []string{"admin"}},
	} {
		t.Run("bob: "+tc.name, func(t *testing.T) { checkHTTPErrorAs(t, c, tokens["bob"], tc) })
	}
	var seen []api.Job
	bob.cliJSON(&seen, "jobs", "--all")
	for _, j := range seen {
		if j.ID == id {
			t.Errorf("bob's job list shows alice's job %d of project vision", id)
		}
	}
	if r := bob.cli("job", "kill", sid); r.code != 1 || !strings.Contains(r.stderr, "403") {
		t.Errorf("allot job kill by bob: exit %d, %s", r.code, r.stderr)
	}

	// A viewer reads but changes nothing; the lead changes the project's jobs.
	if j := vic.show(id); j.ID != id {
		t.Errorf("the viewer cannot read job %d", id)
	}
	checkHTTPErrorAs(t, c, tokens["vic"], httpCase{"viewer kills", "POST", "/api/v1/jobs/" + sid + "/kill", "", 403, "",
		[]string{"viewer role"}})
	checkHTTPErrorAs(t, c, tokens["vic"], httpCase{"viewer submits", "POST", "/api/v1/jobs",
		`{"name": "x", "entrypoint": "true", "project": "vision"}`, 403, "project", []string{"viewer role"}})
	lena.cliOK("job", "set-priority", sid, "20")
	if j := alice.show(id); j.Priority != 20 {
		t.Errorf("after the lead's change, priority %d, want 20", j.Priority)
	}

	// A disabled user's tokens stop at once.
	c.cliOK("user", "disable", "bob")
	checkHTTPErrorAs(t, c, tokens["bob"], httpCase{"disabled user", "GET", "/api/v1/jobs", "", 401, "", []string{"disabled"}})

	// The audit log has who tried what, and the outcome.
	var log []api.AuditEntry
	c.cliJSON(&log, "audit", "--actor", "user:bob")
	found := false
	for _, e := range log {
		if e.Action == "POST /api/v1/jobs/"+sid+"/kill" && e.Status == 403 && strings.Contains(e.Detail, "lead role") && e.RequestID != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("the audit log lacks bob's refused kill of job %d: %+v", id, log)
	}
	alice.cliOK("job", "kill", sid)
}

// writeJob writes a job file and returns its path.
func writeJob(t *testing.T, yaml string) string {
	path := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// statusOf sends one request and returns its status.
func statusOf(t *testing.T, c *cluster, token, method, path, body string) int {
	code, _ := send(t, c, token, method, path, body)
	return code
}

func send(t *testing.T, c *cluster, token, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, c.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func agentRefusals(t *testing.T, c *cluster, tokens map[string]string) {
	gpu := `{"index": 0, "uuid": "u", "type": "h100", "memory_mib": 1}`
	reg := func(name, gpus string) string {
		return fmt.Sprintf(`{"name": %q, "pool": "default", "gpus": [%s], "running": []}`, name, gpus)
	}
	// A task running on node-1, which others will try to end.
	id := c.as(tokens["alice"]).submit("long", `{name: long, project: vision, entrypoint: "sleep 120", resources: {slots: 1}}`)
	c.waitJob(id, "running", func(j api.Job) bool { return j.State == "running" })
	task := fmt.Sprintf(`{"job_id": "%d", "task_index": 0, "attempt": 1}`, id)

	for _, tc := range []struct {
		name, token string
		httpCase
	}{
		{"no token", noToken, httpCase{"", "POST", "/api/v1/agents/register", reg("rogue", gpu), 401, "", nil}},
		{"a user's token", tokens["alice"], httpCase{"", "POST", "/api/v1/agents/register", reg("rogue", gpu), 403, "",
			[]string{"join token"}}},
		{"take over a held node", "", httpCase{"", "POST", "/api/v1/agents/register", reg("node-1", gpu), 409, "name",
			[]string{`node "node-1" is held by another agent`}}},
		{"absurd inventory", "", httpCase{"", "POST", "/api/v1/agents/register",
			reg("big-1", manyGPUs(100)), 422, "gpus", []string{"100 GPUs", "most a node may declare is 64"}}},
		{"bad node name", "", httpCase{"", "POST", "/api/v1/agents/register", reg("../etc", gpu), 400, "name",
			[]string{"not allowed"}}},
		{"sync without a node credential", "", httpCase{"", "POST", "/api/v1/agents/node-1/sync",
			fmt.Sprintf(`{"reports": [{"seq": 1, "task": %s, "event": "exited", "outcome": "completed", "exit_code": 0, "at": "2026-01-01T00:00:00Z"}], "running": [], "wait_s": 0}`, task),
			403, "", []string{"node credential"}}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkHTTPErrorAs(t, c, tc.token, tc.httpCase) })
	}

	// A node that joined legitimately may act only on its own tasks.
	code, body := send(t, c, c.join, "POST", "/api/v1/agents/register", reg("cpu-1", ""))
	var rr api.RegisterReply
	if code != 200 || json.Unmarshal(body, &rr) != nil || !strings.HasPrefix(rr.Credential, "allot_n_") {
		t.Fatalf("register cpu-1 with the join token: %d %s", code, body)
	}
	forged := fmt.Sprintf(`{"reports": [{"seq": 1, "task": %s, "event": "exited", "outcome": "completed", "exit_code": 0, "at": "2026-01-01T00:00:00Z"}], "running": [], "wait_s": 0}`, task)
	checkHTTPErrorAs(t, c, rr.Credential, httpCase{"act as another node", "POST", "/api/v1/agents/node-1/sync", forged, 403, "",
		[]string{`may act only as itself`}})
	checkHTTPErrorAs(t, c, rr.Credential, httpCase{"report another node's task", "POST", "/api/v1/agents/cpu-1/sync", forged, 403, "",
		[]string{"does not run on it"}})
	if j := c.show(id); j.State != "running" {
		t.Errorf("after the forged reports, job %d is %s, want still running", id, j.State)
	}
	if n := c.waitNode("node-1", "up"); n.Slots != 2 {
		t.Errorf("node-1 after the takeover attempt: %+v", n)
	}
	if !strings.Contains(c.master.log(), "agent request refused") {
		t.Error("the master did not log the refused agent requests")
	}
	c.cliOK("job", "kill", strconv.FormatInt(id, 10))
}

// manyGPUs is an inventory of n distinct GPUs as JSON list items.
func manyGPUs(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"index": %d, "uuid": "u%d", "type": "h100", "memory_mib": 1}`, i, i)
	}
	return strings.Join(items, ", ")
}

// slowBodies holds many connections that send a request body byte by
// byte: the master cuts them at --read-timeout and keeps serving.
func slowBodies(t *testing.T, c *cluster) {
	addr := strings.TrimPrefix(c.url, "http://")
	const conns = 200 // over --max-conns 64
	var open []net.Conn
	for range conns {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, conn)
		fmt.Fprintf(conn, "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
	}
	defer func() {
		for _, conn := range open {
			conn.Close()
		}
	}()
	// A legitimate client still gets through once the slow ones are cut.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.api.Nodes(ctx); err != nil {
		t.Fatalf("a client behind %d slow bodies: %v", conns, err)
	}
	closed := 0
	buf := make([]byte, 512)
	for _, conn := range open {
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		for {
			n, err := conn.Read(buf)
			if err != nil {
				closed++
				break
			}
			if bytes.Contains(buf[:n], []byte("HTTP/1.1 4")) || bytes.Contains(buf[:n], []byte("HTTP/1.1 5")) {
				closed++
				break
			}
		}
	}
	if closed != conns {
		t.Errorf("%d of %d slow connections were cut", closed, conns)
	}
}
