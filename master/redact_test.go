package master

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// privacyHarness has bob (project nlp) and carol and alice (project
// vision) on a 4-GPU node of one pool: the cluster of the redaction tests.
func privacyHarness(t *testing.T, policy string) *harness {
	cfg := mustConfig(t, "default_project: vision\npools:\n  - {name: default, policy: "+policy+"}\n"+
		"projects:\n  - name: vision\n  - name: nlp\n")
	h := newHarness(t, withConfig(cfg))
	h.as("bob", "nlp=member")
	h.as("carol", "vision=member")
	h.as("alice", "vision=member")
	return h
}

// rawAs sends a request as token's user and returns the status and the
// answer's text, for tests that look for words anywhere in it.
func (h *harness) rawAs(token, method, path string, body any) (int, string) {
	h.t.Helper()
	var raw json.RawMessage
	code := h.doAs(token, method, path, body, &raw)
	return code, string(raw)
}

// refWords is how a test sees a JobRef: "ID name user" or "ID private".
func refWords(id int64, name, user string, private bool) string {
	if private {
		if name != "" || user != "" {
			return strconv.FormatInt(id, 10) + " private but named " + name + " " + user
		}
		return strconv.FormatInt(id, 10) + " private"
	}
	return strconv.FormatInt(id, 10) + " " + name + " " + user
}

func jobRefWords(refs []api.JobRef) string {
	var out []string
	for _, r := range refs {
		out = append(out, refWords(r.ID, r.Name, r.User, r.Private))
	}
	return strings.Join(out, "; ")
}

// TestExplainRedacts: an explanation names the jobs ahead, those that
// must end and those that would start first in full for a caller who
// may read them (an admin; a member of their project) and by number
// only for another: their names and users never reach a member of
// another project, in the fields or the words.
func TestExplainRedacts(t *testing.T) {
	h := privacyHarness(t, "fifo")
	n1, n2 := h.agent("n1", 4), h.agent("n2", 4)
	train := h.submitAs("bob", `{"name": "bob-secret-train", "project": "nlp", "entrypoint": "x", "resources": {"slots": 4, "time_limit": 3600}}`)
	train2 := h.submitAs("bob", `{"name": "bob-secret-tune", "project": "nlp", "entrypoint": "x", "resources": {"slots": 4, "time_limit": 7200}}`)
	h.step()
	h.sync(n1, n2)
	// alice's job waits 2nd: both of bob's running jobs must end, as
	// carol's, first, takes what one frees; bob's, 3rd, waits behind
	// carol's and alice's whatever ends.
	carols := h.submitAs("carol", `{"name": "carol-queued", "project": "vision", "entrypoint": "x", "resources": {"slots": 4}}`)
	alices := h.submitAs("alice", `{"name": "alice-wait", "project": "vision", "entrypoint": "x", "resources": {"slots": 4}}`)
	bobs := h.submitAs("bob", `{"name": "bob-secret-queued", "project": "nlp", "entrypoint": "x", "resources": {"slots": 4}}`)
	h.step()
	id := strconv.FormatInt
	trains := func(private bool) string {
		if private {
			return refWords(train, "", "", true) + "; " + refWords(train2, "", "", true)
		}
		return refWords(train, "bob-secret-train", "bob", false) + "; " + refWords(train2, "bob-secret-tune", "bob", false)
	}
	for _, tt := range []struct {
		name, token                string
		job                        int64
		ahead, mustEnd, startFirst string
		hiddenNames                []string // in no part of the answer
	}{
		{"a member of another project sees numbers only", h.as("alice"), alices,
			id(carols, 10) + " carol-queued carol", trains(true), id(carols, 10) + " carol-queued carol",
			[]string{"bob-secret", `"bob"`}},
		{"an admin sees every job whole", h.admin, alices,
			id(carols, 10) + " carol-queued carol", trains(false), id(carols, 10) + " carol-queued carol", nil},
		{"the owner's project is not redacted, another's is", h.as("bob"), bobs,
			id(carols, 10) + " private; " + id(alices, 10) + " private", "",
			id(carols, 10) + " private; " + id(alices, 10) + " private",
			[]string{"carol-queued", `"carol"`, "alice-wait", `"alice"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var x api.Explanation
			code, body := h.rawAs(tt.token, "GET", "/api/v1/jobs/"+id(tt.job, 10)+"/explain", nil)
			if code != 200 {
				t.Fatalf("explain: %d %s", code, body)
			}
			if err := json.Unmarshal([]byte(body), &x); err != nil {
				t.Fatal(err)
			}
			if got := jobRefWords(x.Ahead); got != tt.ahead {
				t.Errorf("ahead %q, want %q", got, tt.ahead)
			}
			if x.WouldStart == nil {
				t.Fatalf("no counterfactual: %s", body)
			}
			if got := jobRefWords(x.WouldStart.MustEnd); got != tt.mustEnd {
				t.Errorf("must end %q, want %q", got, tt.mustEnd)
			}
			if got := jobRefWords(x.WouldStart.StartFirst); got != tt.startFirst {
				t.Errorf("start first %q, want %q", got, tt.startFirst)
			}
			for _, s := range tt.hiddenNames {
				if strings.Contains(body, s) {
					t.Errorf("the answer says %s: %s", s, body)
				}
			}
		})
	}
	if code := h.doAs(h.as("alice"), "GET", "/api/v1/jobs/"+id(bobs, 10)+"/explain", nil, nil); code != 403 {
		t.Errorf("alice's explain of bob's job: %d, want 403", code)
	}
}

// TestDryRunRedacts: a dry run's victims are named for a caller who may
// read them and by number, tasks and slots only for another.
func TestDryRunRedacts(t *testing.T) {
	h := privacyHarness(t, "priority, preemption: true")
	n1 := h.agent("n1", 4)
	train := h.submitAs("bob", `{"name": "bob-secret-train", "project": "nlp", "entrypoint": "x", "resources": {"slots": 4, "priority": 80}}`)
	h.step()
	h.sync(n1)
	spec := `{"name": "urgent", "project": "vision", "entrypoint": "x", "resources": {"slots": 4, "priority": 10}}`
	for _, tt := range []struct {
		name, token, want string
	}{
		{"a member of another project", h.as("alice"), strconv.FormatInt(train, 10) + " private"},
		{"an admin", h.admin, strconv.FormatInt(train, 10) + " bob-secret-train bob"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, body := h.rawAs(tt.token, "POST", "/api/v1/jobs?dry_run=true", spec)
			if code != 200 {
				t.Fatalf("dry run: %d %s", code, body)
			}
			var d api.DryRun
			if err := json.Unmarshal([]byte(body), &d); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range d.Preempts {
				got = append(got, refWords(v.Job, v.Name, v.User, v.Private))
				if v.Tasks != 1 || v.Slots != 4 {
					t.Errorf("victim %+v: want its 1 task and 4 slots whoever asks", v)
				}
			}
			if strings.Join(got, "; ") != tt.want {
				t.Errorf("preempts %q, want %q", got, tt.want)
			}
			if tt.token != h.admin && strings.Contains(body, "bob") {
				t.Errorf("the answer names bob or his job: %s", body)
			}
		})
	}
}

// TestNodesShowHeldGPUs: GET /nodes says which GPUs are held to every
// user, so that a member of another project sees a GPU that bob's job
// holds as taken, not free, without learning whose it is.
func TestNodesShowHeldGPUs(t *testing.T) {
	h := privacyHarness(t, "fifo")
	n1 := h.agent("n1", 4)
	h.submitAs("bob", `{"name": "bob-secret-train", "project": "nlp", "entrypoint": "x", "resources": {"slots": 3}}`)
	h.step()
	h.sync(n1)
	code, body := h.rawAs(h.as("alice"), "GET", "/api/v1/nodes", nil)
	var nodes []api.Node
	if err := json.Unmarshal([]byte(body), &nodes); code != 200 || err != nil || len(nodes) != 1 {
		t.Fatalf("nodes: %d %v %s", code, err, body)
	}
	if got := nodes[0].UsedGPUs; len(got) != 3 || got[0] != 0 || got[2] != 2 || nodes[0].Used != 3 {
		t.Errorf("used %d, used GPUs %v, want 3: 0, 1 and 2", nodes[0].Used, got)
	}
	if strings.Contains(body, "bob") {
		t.Errorf("GET /nodes names bob or his job: %s", body)
	}
}
