package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenFileHoldsTheTokenAlone: --token-file and --join-token-file
// take a file holding the token alone (surrounding space dropped); a file
// holding more, such as the whole message of allot token create, is
// refused naming the file, before anything is sent (the master here
// cannot be reached, so a file that passed would fail on the connection).
func TestTokenFileHoldsTheTokenAlone(t *testing.T) {
	message := "Created user token 2 for alice. It is shown only this once:\nallot_u_abc\nThe user logs in with: allot login --master http://m --token-file FILE\n"
	tests := []struct {
		name string
		body string
		want string // "" for a token read
	}{
		{"the token alone", "allot_u_abc\n", ""},
		{"with surrounding space", "  allot_u_abc \r\n\n", ""},
		{"empty", " \n", "the file is empty; expected a token"},
		{"token create's whole message", message, "expected the token alone, but the file holds more (3 lines)"},
		{"two words", "allot_u_abc allot_u_def", "expected the token alone, but the file holds more (spaces or control characters)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "token")
			if err := os.WriteFile(path, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, flag := range []string{"--token-file", "--join-token-file"} {
				token, err := readTokenFile(flag, path)
				switch {
				case tt.want == "" && (err != nil || token != "allot_u_abc"):
					t.Errorf("%s: token %q, err %v; want allot_u_abc", flag, token, err)
				case tt.want != "" && (err == nil || !strings.Contains(err.Error(), flag+" "+path+": "+tt.want)):
					t.Errorf("%s: token %q, err %v; want an error naming %s %s: %s", flag, token, err, flag, path, tt.want)
				}
			}
			if tt.want == "" {
				return
			}
			t.Setenv(ConfigEnv, filepath.Join(t.TempDir(), "credentials.json"))
			_, _, err := run(t, "login", "--master", "127.0.0.1:1", "--token-file", path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "cannot reach") {
				t.Errorf("allot login: err %v; want %q before any request", err, tt.want)
			}
		})
	}
}
