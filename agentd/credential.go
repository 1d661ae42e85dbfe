package agentd

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// CredentialFileName is the file in the work directory that keeps the
// node's own credential, which the master issues when the node first
// registers with a join token. With it the agent registers again after a
// restart without a join token, and no other agent can pose as the node.
const CredentialFileName = "node-credential"

// credential is the node's credential and the file that keeps it. Its
// mutex is a leaf: taken alone or under Agent.mu, never before it.
type credential struct {
	path      string // in the work directory
	joinToken string // what the agent presents without a credential
	log       *slog.Logger

	mu     sync.Mutex
	secret string // once loaded or issued
	// dropped: the secret in the file was refused as revoked; the join
	// token goes instead until a join saves a new one.
	dropped bool
}

func newCredential(workDir, joinToken string, log *slog.Logger) *credential {
	return &credential{path: filepath.Join(workDir, CredentialFileName), joinToken: joinToken, log: log}
}

// bearer returns the secret the agent presents: the node's credential
// once it has one, else the join token.
func (c *credential) bearer() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.secret == "" && !c.dropped {
		if data, err := os.ReadFile(c.path); err == nil {
			c.secret = strings.TrimSpace(string(data))
		}
	}
	if c.secret != "" {
		return c.secret
	}
	return c.joinToken
}

// save writes the node's credential durably, readable by the agent's
// user only, before the agent relies on it.
func (c *credential) save(secret string) error {
	tmp := c.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("save the node credential: %w", err)
	}
	_, werr := f.WriteString(secret + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("save the node credential: %w", err)
	}
	if err := os.Rename(tmp, c.path); err != nil {
		return fmt.Errorf("save the node credential: %w", err)
	}
	if d, err := os.Open(filepath.Dir(c.path)); err == nil {
		d.Sync()
		d.Close()
	}
	c.mu.Lock()
	c.secret, c.dropped = secret, false
	c.mu.Unlock()
	return nil
}

// drop forgets a credential the master no longer accepts, so that the
// agent registers with its join token instead. It reports whether there
// is a join token to fall back on. A revoked credential stays in its
// file until a join replaces it, so that the next agent process, which
// presents it once, learns at once that the node is not its own
// (disown.go); an unknown one (a database restored from before it was
// issued) goes.
func (c *credential) drop(revoked bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.secret == "" || c.joinToken == "" {
		return false
	}
	c.secret = ""
	if revoked {
		c.dropped = true
		return true
	}
	if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.log.Warn("could not remove the refused node credential", "err", err)
	}
	return true
}
