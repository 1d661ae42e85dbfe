package agentd

import "testing"

// TestErrorMessageNamesTheFlag: a refused registration names the flag of
// allot agent that set the field at fault, which is what the operator
// typed; other refusals name the API's field.
func TestErrorMessageNamesTheFlag(t *testing.T) {
	cases := []struct {
		name, path, body, want string
	}{
		{"a pool", "/agents/register", `{"error":"pool \"trian\" is not configured","field":"pool"}`,
			`pool "trian" is not configured (--pool)`},
		{"gpus", "/agents/register", `{"error":"too many GPUs","field":"gpus"}`,
			`too many GPUs (--fake-gpus, or the GPUs nvidia-smi lists)`},
		{"a held name", "/agents/register", `{"error":"node \"a\" is held by another agent","field":"name"}`,
			`node "a" is held by another agent (--name)`},
		{"a field no flag sets", "/agents/register", `{"error":"bad","field":"running"}`, `bad (field running)`},
		{"a sync's field", "/agents/n1/sync", `{"error":"bad report","field":"pool"}`, `bad report (field pool)`},
		{"no field", "/agents/register", `{"error":"no"}`, `no`},
		{"not JSON", "/agents/register", `oops`, `oops`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := errorMessage(tc.path, []byte(tc.body)); got != tc.want {
				t.Fatalf("errorMessage: %q, want %q", got, tc.want)
			}
		})
	}
}
