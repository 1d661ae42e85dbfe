package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/auth"
	"github.com/allot-sched/allot/master"
	"github.com/allot-sched/allot/store"
)

// TestSaveDevLogin: allot dev always leaves its login in its own file, and
// puts it in the user's shared credentials file, as the current master,
// only where that replaces nothing but its own earlier logins.
func TestSaveDevLogin(t *testing.T) {
	const dev, prod = "http://127.0.0.1:8080", "https://prod.example:8443"
	ours := func(token string) bool { return strings.HasPrefix(token, "old-dev") }
	for _, c := range []struct {
		name   string
		shared string // the shared file before; "" for none
		saved  bool   // the login went into the shared file
		kept   string // else the master the banner says it keeps
	}{
		{"no shared file", "", true, ""},
		{"an empty one", `{"current": "", "masters": {}}`, true, ""},
		{"an earlier start's login", `{"current": "` + dev + `", "masters": {"` + dev + `": {"token": "old-dev-1"}}}`, true, ""},
		{"an earlier start on another port", `{"current": "http://127.0.0.1:9090", "masters": {"http://127.0.0.1:9090": {"token": "old-dev-2"}}}`, true, ""},
		{"logged in to another master", `{"current": "` + prod + `", "masters": {"` + prod + `": {"token": "allot_u_prod"}}}`, false, prod},
		{"another master's login at the same address", `{"current": "` + dev + `", "masters": {"` + dev + `": {"token": "allot_u_tunnel"}}}`, false, dev},
		{"not current, but at the same address", `{"current": "", "masters": {"` + dev + `": {"token": "allot_u_tunnel"}}}`, false, dev},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, data := t.TempDir(), t.TempDir()
			path := filepath.Join(dir, "credentials.json")
			t.Setenv(ConfigEnv, path)
			if c.shared != "" {
				if err := os.WriteFile(path, []byte(c.shared), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			l, err := saveDevLogin(dev, "new-dev", data, ours)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv(ConfigEnv, l.own)
			own, _, err := loadCredentials()
			if err != nil || own.Current != dev || own.Masters[dev].Token != "new-dev" || l.own != filepath.Join(data, DevCredentialsFile) {
				t.Errorf("own file %s: %+v (%v), want the login to %s", l.own, own, err, dev)
			}
			after, _ := os.ReadFile(path)
			t.Setenv(ConfigEnv, path)
			shared, _, err := loadCredentials()
			switch {
			case err != nil:
				t.Fatal(err)
			case l.saved != c.saved:
				t.Fatalf("saved %v, want %v", l.saved, c.saved)
			case c.saved && (shared.Current != dev || shared.Masters[dev].Token != "new-dev"):
				t.Errorf("shared file %+v, want the new login current", shared)
			case !c.saved && !bytes.Equal(after, []byte(c.shared)):
				t.Errorf("shared file changed:\n%s\nwas\n%s", after, c.shared)
			case !c.saved && l.current != c.kept:
				t.Errorf("banner says it keeps %q, want %q", l.current, c.kept)
			}
			var banner bytes.Buffer
			printDevBanner(&banner, dev, data, l)
			export := ConfigEnv + "=" + l.own
			if strings.Contains(banner.String(), export) == c.saved {
				t.Errorf("banner, want export %s only when the shared file was left:\n%s", export, banner.String())
			}
		})
	}
	t.Run("an unreadable shared file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "credentials.json")
		t.Setenv(ConfigEnv, path)
		if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := saveDevLogin(dev, "new-dev", t.TempDir(), ours)
		if err != nil || l.saved || l.err == nil {
			t.Fatalf("%+v, %v: want the shared file left, with its error", l, err)
		}
		var banner bytes.Buffer
		printDevBanner(&banner, dev, "data", l)
		if !strings.Contains(banner.String(), "could not be read") {
			t.Errorf("banner does not say the shared file could not be read:\n%s", banner.String())
		}
	})
}

// TestIssuedHere: allot dev knows the admin tokens of its own store, its
// earlier starts' (revoked since) too, and no other.
func TestIssuedHere(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	first, err := master.BootstrapAdmin(ctx, st, devAdmin, devNote, false, now)
	if err != nil {
		t.Fatal(err)
	}
	second, err := master.BootstrapAdmin(ctx, st, devAdmin, devNote, false, now) // revokes first
	if err != nil {
		t.Fatal(err)
	}
	other, err := master.BootstrapAdmin(ctx, st, "root", "by hand", false, now)
	if err != nil {
		t.Fatal(err)
	}
	ours := issuedHere(ctx, st)
	for _, c := range []struct {
		name  string
		token string
		want  bool
	}{
		{"this start's", second, true},
		{"an earlier start's, revoked", first, true},
		{"another admin's", other, false},
		{"unknown", "allot_u_nothere", false},
		{"none", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ours(c.token); got != c.want {
				t.Errorf("issuedHere(%q) = %v, want %v", c.token, got, c.want)
			}
		})
	}
}

// TestDevBannerKeptLogin: when allot dev leaves the shared file as it is,
// the banner says whose login it keeps: another master's by its address,
// and one at the dev cluster's own address (typically an earlier allot
// dev's, whose data directory was removed) as one this cluster did not
// issue, with the allot logout that lets the next start log in.
func TestDevBannerKeptLogin(t *testing.T) {
	const dev = "http://127.0.0.1:8080"
	for _, c := range []struct {
		name, current, want, not string
	}{
		{"another master", "https://prod.example:8443", "keeps your login to https://prod.example:8443, so point", "did not issue"},
		{"the dev cluster's own address", dev, "keeps a login to " + dev + " that this cluster did not issue (another master's, or an earlier allot dev's whose data directory is gone; allot logout forgets it), so point", "keeps your login"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var banner bytes.Buffer
			printDevBanner(&banner, dev, "data", devLogin{own: "data/credentials.json", shared: "creds.json", current: c.current})
			if b := banner.String(); !strings.Contains(b, c.want) || strings.Contains(b, c.not) {
				t.Errorf("banner, want %q and not %q:\n%s", c.want, c.not, b)
			}
		})
	}
}

// TestDevRevokesEarlierJoins: each allot dev start revokes the join
// tokens of earlier starts, as it does their admin tokens (trial
// 2026-11-29d D11); a join token an admin made by hand stays live.
func TestDevRevokesEarlierJoins(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := func() string {
		t.Helper()
		c := &devCluster{data: t.TempDir()}
		if err := c.credentials(ctx, st); err != nil {
			t.Fatal(err)
		}
		return c.join
	}
	first := start()
	byHand, err := master.NewJoinToken(ctx, st, devAdmin, "by hand", time.Hour, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	second := start()
	for _, c := range []struct {
		name, token string
		revoked     bool
	}{
		{"an earlier start's", first, true},
		{"this start's", second, false},
		{"one made by hand", byHand, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cred, err := st.CredentialByHash(ctx, auth.Hash(c.token))
			if err != nil {
				t.Fatal(err)
			}
			if got := !cred.RevokedAt.IsZero(); got != c.revoked || cred.Kind != store.CredJoin {
				t.Errorf("%s credential, revoked %v, want a join token, revoked %v", cred.Kind, got, c.revoked)
			}
		})
	}
}
