-- What each configuration reload changed in the pools' scheduling
-- settings ("pool hpc: reservations easy → conservative"), one row a
-- change, seq numbering a reload's changes in order. The what-if export
-- notes those in its window: it replays the whole window under the
-- settings as of the export, so decisions before such a reload may
-- differ from the live master's.
-- Keep in step with migrations/postgres/0025_config_changes.sql.
CREATE TABLE config_changes (
    at_ns INTEGER NOT NULL,
    seq   INTEGER NOT NULL CHECK (seq >= 0),
    what  TEXT    NOT NULL CHECK (what <> ''),
    PRIMARY KEY (at_ns, seq)
);
