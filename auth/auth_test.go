package auth

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/store"
)

func user(name string, roles ...string) Principal {
	p := Principal{User: name, Roles: map[string]store.Role{}}
	for _, r := range roles {
		proj, role, _ := strings.Cut(r, "=")
		p.Roles[proj] = store.Role(role)
	}
	return p
}

func TestDecisions(t *testing.T) {
	admin := Principal{User: "root", Admin: true}
	alice := user("alice", "vision=member")
	lead := user("lena", "vision=lead")
	viewer := user("vic", "vision=viewer")
	everywhere := user("eve", "*=viewer", "nlp=member")
	cases := []struct {
		name    string
		err     error
		allowed bool
		msg     string
	}{
		{"admin changes anything", admin.CanChange("nlp", "bob"), true, ""},
		{"owner member changes own job", alice.CanChange("vision", "alice"), true, ""},
		{"member cannot change another's job", alice.CanChange("vision", "bob"), false, "needs the lead role"},
		{"member cannot change own job in a project without a role", alice.CanChange("nlp", "alice"), false, "needs the member role"},
		{"lead changes the project's jobs", lead.CanChange("vision", "bob"), true, ""},
		{"lead of one project cannot change another's", lead.CanChange("nlp", "bob"), false, "has no role"},
		{"viewer cannot change", viewer.CanChange("vision", "vic"), false, "has the viewer role"},
		{"owner kills own job after losing the role", alice.CanKill("nlp", "alice"), true, ""},
		{"member cannot kill another's job", alice.CanKill("vision", "bob"), false, "needs the lead role"},
		{"a job of no user is no one's to kill but a lead's", alice.CanKill("vision", ""), false, "needs the lead role"},
		{"lead kills the project's jobs", lead.CanKill("vision", "bob"), true, ""},
		{"viewer reads", viewer.CanRead("vision", "bob"), true, ""},
		{"no role cannot read", alice.CanRead("nlp", "bob"), false, `project "nlp" needs a role`},
		{"owner reads own job after losing the role", alice.CanRead("nlp", "alice"), true, ""},
		{"member submits", alice.CanSubmit("vision"), true, ""},
		{"viewer cannot submit", viewer.CanSubmit("vision"), false, "has the viewer role"},
		{"wildcard viewer reads any project", everywhere.CanRead("robotics", ""), true, ""},
		{"stronger role wins over the wildcard", everywhere.CanSubmit("nlp"), true, ""},
		{"wildcard viewer cannot submit elsewhere", everywhere.CanSubmit("robotics"), false, "viewer"},
		{"non-admin cannot reload", alice.CanAdmin("reloading the configuration"), false, "needs the admin role"},
		{"admin reloads", admin.CanAdmin("reloading the configuration"), true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if (c.err == nil) != c.allowed {
				t.Fatalf("allowed = %v, want %v (err %v)", c.err == nil, c.allowed, c.err)
			}
			if c.err != nil {
				if e, ok := c.err.(*Error); !ok || e.Status != 403 {
					t.Fatalf("err = %#v, want a 403 *Error", c.err)
				}
				if !strings.Contains(c.err.Error(), c.msg) {
					t.Fatalf("err = %q, want it to say %q", c.err, c.msg)
				}
			}
		})
	}
}

func TestProjects(t *testing.T) {
	if _, all := (Principal{Admin: true}).Projects(); !all {
		t.Fatal("an admin should see every project")
	}
	if _, all := user("e", "*=viewer").Projects(); !all {
		t.Fatal("a wildcard role should see every project")
	}
	got, all := user("a", "b=member", "a=viewer").Projects()
	if all || strings.Join(got, ",") != "a,b" {
		t.Fatalf("Projects = %v, %v", got, all)
	}
}

func TestCheckName(t *testing.T) {
	cases := []struct {
		name, in string
		ok       bool
		says     string
	}{
		{"simple", "gpu-1", true, ""},
		{"dots and underscores", "rack1.node_2", true, ""},
		{"upper case", "DGX-A", true, ""},
		{"empty", "", false, ""},
		{"leading dash", "-x", false, ""},
		{"trailing dot", "x.", false, ""},
		{"slash", "a/b", false, ""},
		{"space", "a b", false, ""},
		{"unicode", "gpü", false, `character 3 ('ü', U+00FC) is not allowed: expected ASCII letters`},
		{"cyrillic look-alike", "аna", false, `"аna": character 1 ('а', U+0430) is not allowed`},
		{"space named", "a b", false, "character 2 (' ', U+0020)"},
		{"not UTF-8", "a\xd0", false, "character 2 (byte 0xD0, not UTF-8)"},
		{"63 wide characters", strings.Repeat("é", 63), false, "character 1 ('é', U+00E9)"},
		{"trailing dash after a wide one", "é-", false, "character 1"},
		{"63 characters", strings.Repeat("a", 63), true, ""},
		{"64 characters", strings.Repeat("a", 64), false, "expected at most 63 characters, got 64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckName("node name", c.in)
			if (err == nil) != c.ok {
				t.Fatalf("CheckName(%q) = %v, want ok=%v", c.in, err, c.ok)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "node name") {
				t.Fatalf("error %q does not name the field", err)
			}
			if err != nil && !strings.Contains(err.Error(), c.says) {
				t.Fatalf("error %q does not say %q", err, c.says)
			}
		})
	}
}

func TestSecrets(t *testing.T) {
	a, ha, err := NewSecret(PrefixUser)
	if err != nil {
		t.Fatal(err)
	}
	b, hb, _ := NewSecret(PrefixUser)
	if a == b || ha == hb || !strings.HasPrefix(a, PrefixUser) || len(ha) != 64 || Hash(a) != ha {
		t.Fatalf("secrets %q/%q hashes %q/%q", a, b, ha, hb)
	}
	for _, c := range []struct {
		name, header, want string
		ok                 bool
	}{
		{"bearer", "Bearer abc", "abc", true},
		{"case-insensitive scheme", "bearer abc", "abc", true},
		{"basic", "Basic abc", "", false},
		{"no token", "Bearer ", "", false},
		{"empty", "", "", false},
		{"two tokens", "Bearer a b", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := BearerToken(c.header)
			if got != c.want || ok != c.ok {
				t.Fatalf("BearerToken(%q) = %q, %v", c.header, got, ok)
			}
		})
	}
}

func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"gpu-1", "", "-", "a.b", strings.Repeat("z", 70)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckName("name", s) != nil {
			return
		}
		if len(s) == 0 || len(s) > MaxNameLen || strings.ContainsAny(s, "/ \t\n\"'?#%") {
			t.Fatalf("accepted %q", s)
		}
	})
}
