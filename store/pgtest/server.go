package pgtest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Options tune a throwaway server.
type Options struct {
	// Durable keeps fsync on, as in production; for benchmarks. Without it
	// the server skips fsync, which survives a crash of PostgreSQL itself
	// but not of the machine, and is much faster for tests.
	Durable bool
}

// Server is a throwaway PostgreSQL cluster in a temporary directory.
type Server struct {
	opts Options
	bin  string              // directory of initdb and postgres
	cred *syscall.Credential // the user to run as when we are root
	dir  string              // everything lives here; the socket too
	port int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// Start starts a server of the test's own, stopped and removed when the
// test ends. It fails the test when the server cannot run.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := launch(opts)
	if err != nil {
		t.Fatalf("pgtest: cannot start PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Remove(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return s
}

// URL is the superuser's connection URL to the "postgres" database.
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// NewSchema returns URL() with a new, empty schema as its search_path.
func (s *Server) NewSchema() (string, error) { return newSchema(s.URL()) }

// binDir finds the directory holding initdb and postgres.
func binDir() (string, error) {
	var candidates []string
	if dir := os.Getenv(EnvBin); dir != "" {
		candidates = []string{dir}
	} else {
		candidates = []string{"/usr/lib/postgresql/15/bin"}
		more, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		sort.Sort(sort.Reverse(sort.StringSlice(more)))
		candidates = append(candidates, more...)
		if p, err := exec.LookPath("initdb"); err == nil {
			candidates = append(candidates, filepath.Dir(p))
		}
	}
	for _, dir := range candidates {
		if isFile(filepath.Join(dir, "initdb")) && isFile(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("PostgreSQL server binaries (initdb, postgres) not found in %v: "+
		"install them (Debian: apt-get install -y postgresql-15), point %s at their directory, "+
		"or set %s to an existing server", candidates, EnvBin, EnvDSN)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// runAs returns the credential to run PostgreSQL under: none normally,
// the postgres user when we are root (PostgreSQL refuses to run as root).
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, and PostgreSQL will not: no \"postgres\" user to run it as (%w)", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user postgres: %w", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// launch creates, initialises and starts a new server.
func launch(opts Options) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := runAs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parentDir(cred != nil), "allot-pg-")
	if err != nil {
		return nil, fmt.Errorf("create server directory: %w", err)
	}
	s := &Server{opts: opts, bin: bin, cred: cred, dir: dir}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("hand %s to user postgres: %w", dir, err)
		}
	}
	if err := s.initdb(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.startOnFreePort(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// parentDir is where server directories go: the temporary directory,
// unless the postgres user could not reach it or the socket path would be
// too long for a unix socket, in which case /tmp.
func parentDir(asOtherUser bool) string {
	tmp := os.TempDir()
	if len(tmp) > 60 {
		return "/tmp"
	}
	if fi, err := os.Stat(tmp); asOtherUser && (err != nil || fi.Mode().Perm()&0o001 == 0) {
		return "/tmp"
	}
	return tmp
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = []string{"LC_ALL=C", "PATH=" + os.Getenv("PATH"), "HOME=" + s.dir}
	// The server dies with the test binary even if the binary is killed.
	cmd.SysProcAttr = dieWithParent(&syscall.SysProcAttr{Credential: s.cred})
	return cmd
}

func (s *Server) initdb() error {
	cmd := s.command("initdb", "-D", filepath.Join(s.dir, "data"), "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out.Bytes())
	}
	return nil
}

// startOnFreePort picks a free port and starts; a port taken in between
// is retried with another.
func (s *Server) startOnFreePort() error {
	var err error
	for try := 0; try < 3; try++ {
		if s.port, err = freePort(); err != nil {
			return err
		}
		if err = s.startOnce(); err == nil {
			return nil
		}
	}
	return err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Restart starts the server again (after Stop or Kill) on the same data
// and port, and waits until it accepts connections. After a Kill, the old
// server's backends may still hold its shared memory for a moment, so a
// start that fails is tried again for a few seconds.
func (s *Server) Restart() error {
	var err error
	for try := 0; try < 10; try++ {
		if err = s.startOnce(); err == nil {
			return nil
		}
		time.Sleep(300 * time.Millisecond)
	}
	return err
}

func (s *Server) startOnce() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("postgres is already running")
	}
	fsync := "off"
	if s.opts.Durable {
		fsync = "on"
	}
	logf, err := os.OpenFile(filepath.Join(s.dir, "postgres.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open server log: %w", err)
	}
	defer logf.Close()
	cmd := s.command("postgres", "-D", filepath.Join(s.dir, "data"), "-p", strconv.Itoa(s.port),
		"-k", s.dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync="+fsync,
		"-c", "full_page_writes="+fsync, "-c", "max_connections=60", "-c", "shared_buffers=32MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	if err := s.waitReady(done); err != nil {
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("postgres on port %d: %w\n%s", s.port, err, s.logTail())
	}
	s.cmd, s.done = cmd, done
	return nil
}

func (s *Server) waitReady(done <-chan struct{}) error {
	db, err := sql.Open("pgx", s.URL())
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = db.PingContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-done:
			return errors.New("exited while starting")
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after 60s: %w", err)
		}
	}
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Stop shuts the server down cleanly, keeping its data.
func (s *Server) Stop() error { return s.signal(syscall.SIGINT, 30*time.Second) }

// Kill crashes the server (SIGKILL to the postmaster), as a power cut of
// the database process would; Restart recovers it from its WAL.
func (s *Server) Kill() error { return s.signal(syscall.SIGKILL, 30*time.Second) }

func (s *Server) signal(sig syscall.Signal, wait time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal postgres: %w", err)
	}
	select {
	case <-s.done:
	case <-time.After(wait):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd, s.done = nil, nil
	return nil
}

// Remove stops the server and deletes its files.
func (s *Server) Remove() error {
	err := s.Stop()
	if rmErr := os.RemoveAll(s.dir); rmErr != nil {
		err = errors.Join(err, rmErr)
	}
	if err != nil {
		return fmt.Errorf("remove postgres server in %s: %w", s.dir, err)
	}
	return nil
}
