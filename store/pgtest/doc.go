// Package pgtest runs throwaway PostgreSQL servers for tests, so that no
// test has to be skipped for want of a database service.
//
// A package whose tests need PostgreSQL calls Main from its TestMain and
// DSN from each test:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		dsn := pgtest.DSN(t) // an empty schema of its own
//		...
//	}
//
// The first DSN call starts one server for the whole test binary (initdb
// into a temporary directory, postgres on a free 127.0.0.1 port with its
// unix socket in that directory); Main stops it and removes its files.
// Every DSN call gets a fresh schema (through search_path), so tests may
// run in parallel. A test that must crash or restart the database starts
// a server of its own with Start.
//
// Setting ALLOT_TEST_POSTGRES_DSN to a postgres:// URL uses that server
// instead (its user needs the right to create schemas). Otherwise the
// server binaries are looked for in ALLOT_TEST_POSTGRES_BIN, then in
// /usr/lib/postgresql/15/bin, /usr/lib/postgresql/*/bin and PATH; when
// they are missing the test fails, saying how to install them. As root,
// PostgreSQL runs as the "postgres" user, which must exist (the Debian
// package creates it).
package pgtest
