package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/config"
)

// TestDevConfig checks the built-in configuration against the dev nodes:
// it parses, and pins each node to the pool the node is declared in.
func TestDevConfig(t *testing.T) {
	cfg, err := config.Parse("dev.yaml", devConfigYAML)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Nodes) != len(devNodes) {
		t.Fatalf("dev.yaml pins %d nodes, the dev cluster has %d", len(cfg.Nodes), len(devNodes))
	}
	for _, d := range devNodes {
		rule, ok := cfg.Node(d.name)
		if !ok || rule.Pool != d.pool {
			t.Errorf("node %s: rule %+v, want pool %s", d.name, rule, d.pool)
		}
		if _, ok := cfg.Pool(d.pool); !ok {
			t.Errorf("node %s: pool %s is not configured", d.name, d.pool)
		}
	}
}

// TestDevFlagErrors: a start that cannot go on says which flag to change,
// and one refused by a flag or its address leaves no data directory
// behind.
func TestDevFlagErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	inUse := t.TempDir()
	held, err := lockDataDir(inUse)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	fresh := func() string { return filepath.Join(t.TempDir(), "dev") }
	tests := []struct {
		name string
		f    devFlags
		want []string
		// created says whether the data directory may be made.
		created bool
	}{
		{name: "bad log level", f: devFlags{listen: "127.0.0.1:0", data: fresh(), logLevel: "loud"}, want: []string{"--log-level"}},
		{name: "address in use", f: devFlags{listen: busy.Addr().String(), data: fresh(), logLevel: "info"},
			want: []string{"--listen " + busy.Addr().String() + ": the address is in use", "--listen 127.0.0.1:0"}},
		{name: "address that does not parse", f: devFlags{listen: "127.0.0.1", data: fresh(), logLevel: "info"},
			want: []string{"--listen 127.0.0.1: expected HOST:PORT"}},
		{name: "data directory in use", f: devFlags{listen: "127.0.0.1:0", data: inUse, logLevel: "info"},
			want: []string{"--data " + inUse + ": the data directory is in use by process " + strconv.Itoa(os.Getpid())}, created: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := runDev(ctx, &lockedBuffer{}, &lockedBuffer{}, tt.f)
			for _, want := range tt.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want one mentioning %q", err, want)
				}
			}
			if _, serr := os.Stat(tt.f.data); !tt.created && serr == nil {
				t.Errorf("the refused start made its data directory %s", tt.f.data)
			}
		})
	}
}

// TestDevStartsAndStops runs the dev cluster in-process: it prints the
// banner once every node is up, and returns nil when its context ends.
func TestDevStartsAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, logs := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan error, 1)
	data := filepath.Join(t.TempDir(), "dev")
	// A credentials file of its own: another test's login would be another
	// master's, which allot dev leaves current (TestSaveDevLogin).
	t.Setenv(ConfigEnv, filepath.Join(t.TempDir(), "credentials.json"))
	go func() { done <- runDev(ctx, out, logs, devFlags{listen: "127.0.0.1:0", data: data, logLevel: "info"}) }()
	banner := regexp.MustCompile(`dashboard  (http://\S+)/\n`)
	var url string
	for deadline := time.Now().Add(60 * time.Second); url == ""; {
		if m := banner.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("runDev returned %v before its banner:\n%s", err, logs.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no banner within 60 s:\n%s", logs.String())
		}
	}
	c, err := client.New(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Nodes(ctx); err == nil {
		t.Error("the dev master answered a request without a token")
	}
	creds, _, err := loadCredentials()
	if err != nil || creds.Current != url || creds.Masters[url].Token == "" {
		t.Fatalf("allot dev did not log the CLI in to %s: %+v, %v", url, creds, err)
	}
	c = c.WithToken(creds.Masters[url].Token)
	t.Setenv(ConfigEnv, filepath.Join(data, DevCredentialsFile))
	if own, _, err := loadCredentials(); err != nil || own.Current != url || own.Masters[url] != creds.Masters[url] {
		t.Errorf("the dev cluster's own credentials file: %+v, %v; want the same login", own, err)
	}
	nodes, err := c.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if up := upNodes(nodes); up != len(devNodes) {
		t.Errorf("%d nodes up when the banner was printed, want %d: %+v", up, len(devNodes), nodes)
	}
	if !strings.Contains(out.String(), "the CLI is logged in") {
		t.Errorf("the banner does not say the CLI is logged in:\n%s", out.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runDev: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("runDev did not return after its context ended")
	}
	if !strings.Contains(logs.String(), "dev cluster stopped") {
		t.Errorf("no stop message in the logs:\n%s", logs.String())
	}
}

// TestDevSignals: the first signal cancels the dev cluster's context and
// the second calls exit; stop ends the watch, so a signal after it calls
// nothing.
func TestDevSignals(t *testing.T) {
	tests := []struct {
		name    string
		signals []os.Signal
		// cancelled: the context ends before stop; exited: exit gets this.
		cancelled bool
		exited    os.Signal
	}{
		{name: "none", signals: nil},
		{name: "one", signals: []os.Signal{os.Interrupt}, cancelled: true},
		{name: "two", signals: []os.Signal{os.Interrupt, os.Interrupt}, cancelled: true, exited: os.Interrupt},
		{name: "a terminate after an interrupt", signals: []os.Signal{os.Interrupt, syscall.SIGTERM}, cancelled: true, exited: syscall.SIGTERM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sigs := make(chan os.Signal)
			exits := make(chan os.Signal, 1)
			ctx, stop := signalStops(context.Background(), sigs, func(s os.Signal) { exits <- s })
			// The channel is unbuffered: each send returns once the watch
			// has taken the signal.
			for _, s := range tt.signals {
				sigs <- s
			}
			if tt.cancelled {
				<-ctx.Done()
			} else if ctx.Err() != nil {
				t.Errorf("the context ended with no signal: %v", ctx.Err())
			}
			if tt.exited != nil {
				if got := <-exits; got != tt.exited {
					t.Errorf("exit(%v), want exit(%v)", got, tt.exited)
				}
			}
			stop()
			select {
			case s := <-exits:
				t.Errorf("exit(%v) called, want no exit", s)
			default:
			}
			if ctx.Err() == nil {
				t.Error("stop did not end the context")
			}
			select {
			case sigs <- os.Interrupt:
				t.Error("a signal after stop was taken")
			default:
			}
		})
	}
}

func TestSignalExitCode(t *testing.T) {
	tests := []struct {
		name string
		sig  os.Signal
		want int
	}{
		{"interrupt", os.Interrupt, 130},
		{"terminate", syscall.SIGTERM, 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := signalExitCode(tt.sig); got != tt.want {
				t.Errorf("signalExitCode(%v) = %d, want %d", tt.sig, got, tt.want)
			}
		})
	}
}
