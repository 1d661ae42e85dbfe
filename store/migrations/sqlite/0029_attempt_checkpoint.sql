-- What an attempt's checkpoint directory held as its processes exited,
-- by its agents' exit reports (api.Report.Checkpoint): 'written' (a part
-- left anything there), 'none' (every part's was empty), '' when unknown
-- (an agent or a master older than the report's field, an attempt no
-- agent reported the end of, and every attempt ended before this
-- migration). The master words a requeued task's return by it:
-- "resumes from its checkpoint", "starts over: it wrote no checkpoint",
-- or, unknown, "resumes from its checkpoint if it wrote one".
-- Keep in step with migrations/postgres/0029_attempt_checkpoint.sql.
ALTER TABLE attempts ADD COLUMN checkpoint TEXT NOT NULL DEFAULT ''
    CHECK (checkpoint IN ('', 'written', 'none'));
