-- The reservations conservative backfilling carries from one scheduling
-- pass to the next (a waiting job's reserved start and, on pools that
-- reserve per node, its nodes), so that a restarted master hands the core
-- the same snapshot as before the restart. One row per job that holds
-- one. Keep in step with migrations/postgres/0010_reservations.sql.
CREATE TABLE reservations (
    job_id      INTEGER  PRIMARY KEY,
    at_s        INTEGER  NOT NULL, -- the reserved start, Unix seconds; 0: none known
    nodes       TEXT    NOT NULL  -- JSON [{"node": index, "slots": n}]
);
