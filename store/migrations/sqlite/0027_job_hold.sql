-- A queued job may be held (allot job hold, allot submit --hold): no
-- scheduling pass considers it until it is released. held_by names who
-- held it, NULL for a job not held; held_ns is when. The hold's and the
-- release's events keep the change, held_from and held_to (NULL for
-- every other event), which the what-if export replays as hold and
-- release events. Keep in step with
-- migrations/postgres/0027_job_hold.sql.
ALTER TABLE jobs ADD COLUMN held_by TEXT;
ALTER TABLE jobs ADD COLUMN held_ns INTEGER;
ALTER TABLE events ADD COLUMN held_from BOOLEAN;
ALTER TABLE events ADD COLUMN held_to BOOLEAN;
