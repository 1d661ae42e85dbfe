package agentd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CredentialFileName is the file in the work directory that keeps the
// node's own credential, which the master issues when the node first
// registers with a join token. With it the agent registers again after a
// restart without a join token, and no other agent can pose as the node.
const CredentialFileName = "node-credential"

func (a *Agent) credentialPath() string { return filepath.Join(a.cfg.WorkDir, CredentialFileName) }

// bearer returns the secret the agent presents: the node's credential
// once it has one, else the join token. Callers hold mu.
func (a *Agent) bearer() string {
	if a.cred == "" {
		if data, err := os.ReadFile(a.credentialPath()); err == nil {
			a.cred = strings.TrimSpace(string(data))
		}
	}
	if a.cred != "" {
		return a.cred
	}
	return a.cfg.JoinToken
}

// saveCredential writes the node's credential durably, readable by the
// agent's user only, before the agent relies on it.
func (a *Agent) saveCredential(secret string) error {
	path := a.credentialPath()
	tmp := path + ".tmp"
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
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("save the node credential: %w", err)
	}
	if d, err := os.Open(a.cfg.WorkDir); err == nil {
		d.Sync()
		d.Close()
	}
	a.mu.Lock()
	a.cred = secret
	a.mu.Unlock()
	return nil
}

// dropCredential forgets a credential the master no longer accepts, so
// that the agent registers with its join token instead. It reports
// whether there is a join token to fall back on.
func (a *Agent) dropCredential() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cred == "" || a.cfg.JoinToken == "" {
		return false
	}
	a.cred = ""
	if err := os.Remove(a.credentialPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.log.Warn("could not remove the refused node credential", "err", err)
	}
	return true
}
