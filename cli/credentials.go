package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/client"
)

// Environment variables of the client commands.
const (
	TokenEnv  = "ALLOT_TOKEN"  // a user's API token
	ConfigEnv = "ALLOT_CONFIG" // the credentials file, instead of the default
	CAEnv     = "ALLOT_CA"     // a PEM file of CAs to trust for HTTPS
)

// credentials is the file that allot login (and allot dev) write: a token
// per master, and the master that commands talk to by default, as
// kubectl's kubeconfig has contexts.
type credentials struct {
	Current string                   `json:"current"`
	Masters map[string]masterAccount `json:"masters"`
}

type masterAccount struct {
	Token string `json:"token"`
	CA    string `json:"ca,omitempty"`
}

// credentialsPath is $ALLOT_CONFIG, else allot/credentials.json in the
// user's configuration directory.
func credentialsPath() (string, error) {
	if p := strings.TrimSpace(os.Getenv(ConfigEnv)); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the configuration directory (set %s): %w", ConfigEnv, err)
	}
	return filepath.Join(dir, "allot", "credentials.json"), nil
}

// loadCredentials reads the credentials file; a missing file is empty.
func loadCredentials() (credentials, string, error) {
	path, err := credentialsPath()
	if err != nil {
		return credentials{}, "", err
	}
	c := credentials{Masters: map[string]masterAccount{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, path, nil
	}
	if err != nil {
		return c, path, fmt.Errorf("credentials: %w", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, path, fmt.Errorf("credentials file %s: not valid JSON (%v): fix it or remove it and run allot login", path, err)
	}
	c.normalise()
	return c, path, nil
}

// normalise keys every master by normalAddr, so that a file written before
// addresses ending in /api/v1 meant their master's root still finds their
// logins. A login already under the normal key wins over one that maps to
// it.
func (c *credentials) normalise() {
	masters := make(map[string]masterAccount, len(c.Masters))
	for addr, acct := range c.Masters {
		if normalAddr(addr) == addr {
			masters[addr] = acct
		}
	}
	for addr, acct := range c.Masters {
		if key := normalAddr(addr); key != addr {
			if _, ok := masters[key]; !ok {
				masters[key] = acct
			}
		}
	}
	c.Masters = masters
	if c.Current != "" {
		c.Current = normalAddr(c.Current)
	}
}

// save writes the file atomically, readable by its owner only: it holds
// secrets.
func (c credentials) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".credentials-*")
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("credentials: %w", err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("credentials: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	return nil
}

// normalAddr is the key of a master in the file: its URL as the client
// spells it, so that host:port, http://host:port and
// http://host:port/api/v1 are one master.
func normalAddr(addr string) string {
	if c, err := client.New(addr, nil); err == nil {
		return c.Addr()
	}
	return addr
}

// saveLogin records the token for master and makes it the current one.
func saveLogin(master, token, ca string) (string, error) {
	c, path, err := loadCredentials()
	if err != nil {
		return "", err
	}
	master = normalAddr(master)
	c.Masters[master] = masterAccount{Token: token, CA: ca}
	c.Current = master
	return path, c.save(path)
}

// commandCA is the CA file the command trusts (clientCA), as an absolute
// path: allot login saves it, and token create prints it for agents and
// users to give, both to be used from other directories. A path that
// cannot be made absolute stays as given.
func commandCA(cmd *cobra.Command) string {
	creds, _, _ := loadCredentials() // newClient has read it already
	ca := clientCA(cmd, creds)
	if ca == "" {
		return ""
	}
	if abs, err := filepath.Abs(ca); err == nil {
		return abs
	}
	return ca
}

// caArg is " --ca FILE" for a CA file, "" for none, to follow --master in
// a command line printed for someone to run.
func caArg(ca string) string {
	if ca == "" {
		return ""
	}
	return " --ca " + shellQuote(ca)
}

// shellQuote is s as one shell word: as it is when it holds only
// characters no shell treats specially, else in single quotes.
func shellQuote(s string) string {
	safe := s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,@=", r))
	})
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
