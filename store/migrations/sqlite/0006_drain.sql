-- An admin's drain of a node: while drain_ns is set the master starts no
-- new task there and lets the running ones finish. It lives in the node's
-- row so that a master restart keeps the node drained; re-registering
-- keeps it too (the agent restarting is not an admin resuming the node),
-- while deleting the row forgets it. Keep in step with
-- migrations/postgres/0006_drain.sql.
ALTER TABLE nodes ADD COLUMN drain_ns INTEGER;
ALTER TABLE nodes ADD COLUMN drain_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE nodes ADD COLUMN drain_by TEXT NOT NULL DEFAULT '';
