package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/master"
	"github.com/allot-sched/allot/store"
	"github.com/allot-sched/allot/web"
)

type masterFlags struct {
	listen   string
	data     string
	db       string
	dbWait   time.Duration
	config   string
	ckpt     string
	logLevel string
	// logFormat is text or json ("" text); logJSON, the deprecated
	// --log-json, is --log-format json (registerLogFlags).
	logFormat string
	logJSON   bool
	serve     serveFlags
}

// serveFlags are the HTTP server's settings, shared by master and dev.
type serveFlags struct {
	tlsCert, tlsKey string
	readTimeout     time.Duration
	maxConns        int
	maxNodeGPUs     int
	privateMetrics  bool
	userRate        float64
	userBurst       int
}

func (s *serveFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&s.tlsCert, "tls-cert", "", "serve HTTPS with this PEM certificate (with --tls-key)")
	fl.StringVar(&s.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	fl.DurationVar(&s.readTimeout, "read-timeout", master.DefaultReadTimeout, "the longest a client may take to send a request, body included")
	fl.IntVar(&s.maxConns, "max-conns", master.DefaultMaxConns, "the most concurrent connections")
	fl.IntVar(&s.maxNodeGPUs, "max-node-gpus", master.DefaultMaxNodeGPUs, "the most GPUs a node may declare")
	fl.BoolVar(&s.privateMetrics, "private-metrics", false, "require an API token for /metrics")
	fl.Float64Var(&s.userRate, "user-rate", master.DefaultUserRate, "changes (requests other than GET) a user may send per second before 429; -1 for no limit; admins are not limited")
	fl.IntVar(&s.userBurst, "user-burst", master.DefaultUserBurst, "changes a user may send at once above --user-rate")
}

func (s *serveFlags) options() (master.ServerOptions, error) {
	if err := master.CheckTLS(s.tlsCert, s.tlsKey); err != nil {
		return master.ServerOptions{}, err
	}
	if s.readTimeout < 0 || s.maxConns < 0 || s.maxNodeGPUs < 0 {
		return master.ServerOptions{}, usageErrorf("--read-timeout, --max-conns and --max-node-gpus: expected values > 0")
	}
	if (s.userRate < 0 && s.userRate != -1) || s.userBurst < 0 {
		return master.ServerOptions{}, usageErrorf("--user-rate %g, --user-burst %d: expected a rate > 0 (or -1 for none) and a burst >= 1", s.userRate, s.userBurst)
	}
	return master.ServerOptions{ReadTimeout: s.readTimeout, MaxConns: s.maxConns, TLSCert: s.tlsCert, TLSKey: s.tlsKey}, nil
}

// scheme is the URL scheme the server answers on.
func (s *serveFlags) scheme() string {
	if s.tlsCert != "" {
		return "https"
	}
	return "http"
}

func newMasterCmd() *cobra.Command {
	var f masterFlags
	cmd := &cobra.Command{
		Use:   "master",
		Short: "Run the master: the live scheduler, its REST API and the agent protocol",
		Long: `Run the master. It keeps jobs and tasks in a store (SQLite in the data
directory by default, or PostgreSQL with --db), schedules them with the same
core as 'allot sim', and serves the REST API under /api/v1, the dashboard
at / (docs/dashboard.md), Prometheus metrics on /metrics and /healthz.

Without --config there is one pool, "default", with the priority policy,
preemption and backfill on. SIGHUP re-reads the --config file (as POST
/api/v1/config/reload does); an invalid file leaves the running
configuration in force. SIGINT or SIGTERM stops the master (a second
exits at once; nothing stored is lost).`,
		Example: `  allot master --data /var/lib/allot
  allot master --listen :8080 --data ./data --config cluster.yaml
  allot master --data ./data --db postgres://allot@db/allot`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := stopOnSignals(cmd, "what was stored is kept, and the next allot master on the same store carries on")
			defer stop()
			return runMaster(ctx, cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to serve the API on")
	fl.StringVar(&f.data, "data", "", "data directory: the SQLite database and task checkpoints (required)")
	fl.StringVar(&f.db, "db", "", "database URL: sqlite://PATH or postgres://...; default SQLite in the data directory")
	fl.DurationVar(&f.dbWait, "db-wait", store.DefaultOpenWait, "how long to wait at start for a PostgreSQL --db that cannot be reached yet, retrying with backoff; 0 to try once")
	fl.StringVar(&f.config, "config", "", "configuration file (pools, nodes, projects, users)")
	fl.StringVar(&f.ckpt, "checkpoint-root", "", "absolute path under which tasks' checkpoint directories are made, on storage every node mounts there (default DATA/checkpoints)")
	registerLogFlags(fl, &f.logLevel, &f.logFormat, &f.logJSON)
	f.serve.register(fl)
	cmd.AddCommand(newRecoverAdminCmd())
	return cmd
}

func runMaster(ctx context.Context, stderr io.Writer, f masterFlags) error {
	sopt, logger, cfg, err := checkMasterFlags(stderr, &f)
	if err != nil {
		return err
	}
	// The address is taken before the data directory is made or the
	// store opened: a start that cannot serve must leave nothing behind.
	ln, err := listenFlag(f.listen)
	if err != nil {
		return err
	}
	defer ln.Close() // a no-op once served: the server closes it first
	serving := false
	release, err := claimData(f.db, f.data)
	if err != nil {
		return err
	}
	defer func() { release(serving) }()
	warnOpenData(logger, f.data)
	// A master that lost the database's master lock to another (PostgreSQL
	// came back and the other took it first) stops: its store refuses
	// every write from then on. Requests share ctx, so that held syncs
	// and log polls end at shutdown.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	// The address answers from here on: while the store opens (a
	// PostgreSQL not up yet is waited for up to --db-wait), front says
	// why the master does not serve yet, rather than leaving probes and
	// the CLI to time out (trial 2026-11-29e E7).
	front := master.NewStarting()
	srv := master.NewServer(front, sopt, func(net.Listener) context.Context { return ctx })
	served := make(chan error, 1)
	go func() { served <- master.Serve(srv, ln, sopt) }()
	url := f.serve.scheme() + "://" + ln.Addr().String()
	if f.serve.tlsCert != "" {
		url = f.serve.scheme() + "://" + loginAddr(f.serve.tlsCert, ln.Addr().String())
	}
	m, st, err := openMaster(ctx, logger, f, cfg, url, front)
	if err != nil {
		srv.Close()
		return err
	}
	defer st.Close()
	lost := store.LockLost(st)
	go reloadOnHangup(ctx, m)
	loop := make(chan error, 1)
	go func() { loop <- m.Run(ctx) }()
	front.Serve(m.Handler())
	serving = true
	logger.Info("master serving", "addr", ln.Addr().String(), "url", url, "data", f.data, "store", store.Describe(f.db, f.data))
	var lostErr error
	select {
	case err := <-served:
		stop()
		<-loop
		return fmt.Errorf("serve: %w", err)
	case lostErr = <-lost:
		logger.Error("stopping: another master took the database", "err", lostErr)
		stop()
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdown)
	<-loop
	logger.Info("master stopped")
	if lostErr != nil {
		return fmt.Errorf("--db: %w", lostErr)
	}
	return err
}

// openMaster opens the store, waiting for a PostgreSQL that is not up
// yet (front tells callers meanwhile), and makes the master on it, with
// the first admin on a first start. On an error, nothing is left open.
func openMaster(ctx context.Context, logger *slog.Logger, f masterFlags, cfg *config.Config, url string,
	front *master.Starting) (*master.Master, store.Store, error) {
	st, err := store.OpenWait(ctx, f.db, f.data, f.dbWait, logger, front.Waiting)
	if err != nil {
		return nil, nil, err
	}
	front.Loading()
	m, err := master.New(ctx, master.Options{Store: st, Config: cfg, ConfigPath: f.config, DataDir: f.data, CheckpointRoot: f.ckpt, Logger: logger,
		UI: web.Handler(), MaxNodeGPUs: f.serve.maxNodeGPUs, PrivateMetrics: f.serve.privateMetrics,
		UserRate: f.serve.userRate, UserBurst: f.serve.userBurst})
	if err == nil {
		err = bootstrapAdmin(ctx, st, f.data, recoverHint(f.data, f.db, f.listen, f.serve.tlsCert), url, loginCA(f.serve.tlsCert), logger)
	}
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return m, st, nil
}

// warnOpenData warns of a data directory others may read (one made
// before the start, under a umask of 022): it holds the database, with
// every job's environment and logs, and the admin's token file.
func warnOpenData(logger *slog.Logger, data string) {
	if st, err := os.Stat(data); err == nil && st.Mode().Perm()&0o077 != 0 {
		logger.Warn("the data directory is readable by other users: it holds the database (jobs' environments and logs) and the admin token; chmod 700 it",
			"data", data, "mode", fmt.Sprintf("%#o", st.Mode().Perm()))
	}
}

// claimData makes the data directory and takes its lock. The returned
// release lets the lock go; given false (the start was refused: the
// database locked by another master, or not openable) it also takes away
// what this start made, a start that cannot serve leaving nothing
// behind: the lock file, removed while still held so that no other start
// locks the file as it goes, then the data directory.
func claimData(db, data string) (func(served bool), error) {
	_, statErr := os.Stat(data)
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	madeDir := errors.Is(statErr, fs.ErrNotExist)
	lockPath := filepath.Join(data, DataLockFile)
	_, lockStatErr := os.Stat(lockPath)
	unlock, err := lockData(db, data)
	if err != nil {
		if madeDir {
			os.RemoveAll(data)
		}
		return nil, err
	}
	madeLock := errors.Is(lockStatErr, fs.ErrNotExist)
	return func(served bool) {
		if !served && madeLock {
			os.Remove(lockPath)
		}
		unlock()
		if !served && madeDir {
			os.RemoveAll(data)
		}
	}, nil
}

// checkMasterFlags checks f before anything is created, makes --data
// absolute (checkpoint directories go to agents, which need absolute
// paths), and returns the server's options, the logger and the
// configuration the flags give.
func checkMasterFlags(stderr io.Writer, f *masterFlags) (master.ServerOptions, *slog.Logger, *config.Config, error) {
	var none master.ServerOptions
	if f.data == "" {
		return none, nil, nil, usageErrorf("--data: a data directory is required")
	}
	if err := checkDB("--db", f.db); err != nil {
		return none, nil, nil, err
	}
	if f.dbWait < 0 {
		return none, nil, nil, usageErrorf("--db-wait %s: expected a duration >= 0", f.dbWait)
	}
	sopt, err := f.serve.options()
	if err != nil {
		return none, nil, nil, err
	}
	if f.ckpt != "" && !filepath.IsAbs(f.ckpt) {
		return none, nil, nil, usageErrorf("--checkpoint-root: expected an absolute path, which every node reaches the same way, got %q", f.ckpt)
	}
	data, err := filepath.Abs(f.data)
	if err != nil {
		return none, nil, nil, fmt.Errorf("--data %q: %w", f.data, err)
	}
	f.data = data
	logger, err := newLogger(stderr, f.logLevel, logFormatOf(f.logFormat, f.logJSON))
	if err != nil {
		return none, nil, nil, err
	}
	cfg, err := masterConfig(f.config)
	if err != nil {
		return none, nil, nil, err
	}
	return sopt, logger, cfg, nil
}

// masterConfig loads --config, or the default configuration without it.
func masterConfig(path string) (*config.Config, error) {
	if path == "" {
		return config.Default(), nil
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	return cfg, nil
}

// listenFlag takes the address of --listen (allot master, allot dev). An
// address that cannot be one (no port, a port out of range) is a usage
// error; one in use is not, since the command line is right, and gets
// advice of its own: it is the usual failure of a second master.
func listenFlag(addr string) (net.Listener, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usageErrorf("--listen %s: expected HOST:PORT, e.g. 127.0.0.1:8080 (:8080 for every interface): %w", addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return nil, usageErrorf("--listen %s: expected a port from 0 to 65535 (0 for any free one): %w", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("--listen %s: the address is in use (another allot dev or master?): stop that process, or pick another address with --listen, e.g. --listen 127.0.0.1:0 for any free port: %w", addr, err)
	case err != nil:
		return nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	return ln, nil
}

// recoverHint is the recover-admin command for a master started with
// these flags: with its --listen and --tls-cert, so that the login line
// recover-admin prints names the address and --ca (recoverLogin), and
// its --db left for the admin to fill in, as it may hold a password;
// a relative --tls-cert is made absolute.
func recoverHint(data, db, listen, tlsCert string) string {
	hint := "allot master recover-admin --data " + shellQuote(data)
	if db != "" {
		hint += " --db <this master's --db>"
	}
	hint += " --listen " + shellQuote(listen)
	if tlsCert != "" {
		// Absolute, as --data is: the hint is run from wherever the
		// admin is (trial 2026-11-29f F4).
		if abs, err := filepath.Abs(tlsCert); err == nil {
			tlsCert = abs
		}
		hint += " --tls-cert " + shellQuote(tlsCert)
	}
	return hint
}

// AdminTokenFile is the file in the data directory where a master's first
// start leaves the first admin's API token.
const AdminTokenFile = "admin.token"

// bootstrapAdmin makes user admin with an API token on the first start
// of a master (no user in the store), and leaves the token, readable by
// the master's user only, in the data directory. On a later start it
// says why it wrote none, and how to get one back (recover-admin), since
// a master given a new --data on an existing database finds no file.
// recover is the recover-admin command it suggests then (recoverHint).
// ca is the CA file the login needs for an HTTPS master (loginCA), which
// its login command names with --ca, as allot token create does; "" for
// none.
func bootstrapAdmin(ctx context.Context, st store.Store, data, recover, url, ca string, logger *slog.Logger) error {
	token, err := master.BootstrapAdmin(ctx, st, "admin", "first admin", true, time.Now().UTC())
	path := filepath.Join(data, AdminTokenFile)
	if err != nil {
		return err
	}
	if token == "" {
		// Not the first start: the file, if still there, holds an admin's
		// token for whoever can read the data directory.
		if _, err := os.Stat(path); err == nil {
			logger.Warn("an admin's token file (the first admin's, or one allot master recover-admin wrote) is still in the data directory: once you have logged in with it, delete it (and revoke the token with allot token revoke if anyone else could read it)",
				"token_file", path)
			return nil
		}
		logger.Info("no admin token written: the database already has users, so this is not a first start; an admin makes tokens with allot token create, and if every admin token is lost, stop the master and run recover-admin (docs/security.md)",
			"token_file", path, "recover", recover)
		return nil
	}
	if err := writeSecretFile(path, token+"\n"); err != nil {
		return fmt.Errorf("write the first admin's token: %w", err)
	}
	logger.Warn("created the first admin, user admin; its API token is in the token file: log in, create users and tokens, then delete the file",
		"token_file", path, "login", "allot login --master "+url+caArg(ca)+" --token-file "+shellQuote(path))
	return nil
}

// reloadOnHangup reloads the configuration on SIGHUP until ctx ends.
func reloadOnHangup(ctx context.Context, m *master.Master) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			_ = m.Reload(ctx) // it logs a refusal itself, as for the API's reloads
		}
	}
}

// dbForms says what --db takes, as store.Open reads it.
const dbForms = "expected sqlite://PATH (a SQLite file; a relative PATH is in --data; sqlite:// alone is DATA/allot.db), " +
	"postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=...] (postgresql:// too), or no --db for SQLite in --data"

// checkDB refuses, as a usage error naming flag, a database that
// store.Open does not take (mysql://x, a bare file name), before the
// address is taken or the data directory made; its password is not
// repeated.
func checkDB(flag, db string) error {
	switch {
	case db == "", db == "sqlite:", strings.HasPrefix(db, "sqlite://"),
		strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		return nil
	}
	shown := db
	if u, err := url.Parse(db); err == nil && u.Scheme != "" {
		shown = u.Redacted()
		if u.Opaque != "" || u.User == nil && strings.Contains(db, "@") {
			shown = u.Scheme + ":..."
		}
	} else if strings.Contains(db, "@") {
		shown = "..."
	}
	return usageErrorf("%s %q: not a database allot can use: %s", flag, shown, dbForms)
}
