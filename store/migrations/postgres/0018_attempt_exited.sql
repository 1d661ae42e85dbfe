-- An attempt keeps when its processes exited (exited_ns), by its agents'
-- exit reports, beside when the master heard of it and freed its GPUs
-- (ended_ns): an agent that could not reach the master when its task
-- exited reports the exit once back, and the attempt's usage records end
-- at the exit, not at the outage's end. The scheduler, the event log and
-- the what-if export go on reading ended_ns. Set whenever an attempt
-- ends (to ended_ns for one ended on no agent's word); NULL while it is
-- open and for the attempts ended before this migration, which read it
-- as ended_ns (their usage ended there). The master keeps it after
-- started_ns too, but the column does not insist: a clock set back may
-- end an attempt before its start, which ended_ns takes as it comes.
-- Keep in step with migrations/sqlite/0018_attempt_exited.sql.
ALTER TABLE attempts ADD COLUMN exited_ns BIGINT,
    ADD CONSTRAINT attempts_exited_within
    CHECK (exited_ns IS NULL OR ended_ns IS NOT NULL AND exited_ns <= ended_ns);
