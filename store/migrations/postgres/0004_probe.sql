-- A one-row table that the master writes to find out whether the store
-- takes writes (Store.Ping): a database that answers reads can still refuse
-- writes (a read-only replica after a failover, a full disk). Keep in step
-- with migrations/sqlite/0004_probe.sql.
CREATE TABLE store_probe (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at_ns BIGINT NOT NULL
);
