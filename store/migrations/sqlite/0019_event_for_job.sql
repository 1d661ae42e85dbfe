-- A task's transition to preempting keeps the job it makes room for
-- (for_job; NULL for a resize and for every other event), beside the
-- rule that let that job take the task's slots (cause: 'priority',
-- 'quota_reclaim', 'same_project', 'fair_share', 'multifactor', 'qos',
-- 'backfilled'; 'moved' for a move), so that a preempted attempt's view
-- names who preempted it and why, after a restart too, without reading
-- it back from the reason users see. Events written before this
-- migration keep neither: their reasons alone say it. Keep in step with
-- migrations/postgres/0019_event_for_job.sql.
ALTER TABLE events ADD COLUMN for_job INTEGER;
