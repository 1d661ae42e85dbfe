-- Moves, resizes and backfill marks, SQLite dialect. Keep in step with
-- migrations/postgres/0002_moves.sql.

-- The placement a preempting task restarts on as soon as its attempt ends
-- (a move or a resize), as JSON like attempts.placement; NULL for none.
ALTER TABLE tasks ADD COLUMN reserved TEXT;

-- Whether the attempt was started by backfill, so that the mark survives a
-- restart of the master.
ALTER TABLE attempts ADD COLUMN backfilled INTEGER NOT NULL DEFAULT 0 CHECK (backfilled IN (0, 1));

-- Preemptions of the last hour are read on start for preemption budgets.
CREATE INDEX events_preempting ON events (at_ns) WHERE to_state = 'preempting';
