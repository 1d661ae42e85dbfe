-- Moves, resizes and backfill marks, PostgreSQL dialect. Keep in step with
-- migrations/sqlite/0002_moves.sql.

-- The placement a preempting task restarts on as soon as its attempt ends
-- (a move or a resize), as JSON like attempts.placement; NULL for none.
ALTER TABLE tasks ADD COLUMN reserved JSONB;

-- Whether the attempt was started by backfill, so that the mark survives a
-- restart of the master.
ALTER TABLE attempts ADD COLUMN backfilled BOOLEAN NOT NULL DEFAULT false;

-- Preemptions of the last hour are read on start for preemption budgets.
CREATE INDEX events_preempting ON events (at_ns) WHERE to_state = 'preempting';
