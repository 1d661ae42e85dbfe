-- A node whose agent said goodbye (a clean shutdown that reported its
-- tasks' ends) is left, not lost. SQLite cannot change a CHECK in place,
-- so the table is rebuilt with the same columns; nothing refers to it.
-- Keep in step with migrations/postgres/0012_node_left.sql.
CREATE TABLE nodes_new (
    name            TEXT    PRIMARY KEY CHECK (name <> ''),
    pool            TEXT    NOT NULL,
    labels          TEXT    NOT NULL DEFAULT '{}',
    gpus            TEXT    NOT NULL DEFAULT '[]',
    state           TEXT    NOT NULL CHECK (state IN ('up', 'lost', 'left')),
    registered_ns   INTEGER NOT NULL,
    heartbeat_ns    INTEGER NOT NULL,
    drain_ns        INTEGER,
    drain_reason    TEXT    NOT NULL DEFAULT '',
    drain_by        TEXT    NOT NULL DEFAULT ''
) WITHOUT ROWID;
INSERT INTO nodes_new (name, pool, labels, gpus, state, registered_ns, heartbeat_ns, drain_ns, drain_reason, drain_by)
    SELECT name, pool, labels, gpus, state, registered_ns, heartbeat_ns, drain_ns, drain_reason, drain_by FROM nodes;
DROP TABLE nodes;
ALTER TABLE nodes_new RENAME TO nodes;
