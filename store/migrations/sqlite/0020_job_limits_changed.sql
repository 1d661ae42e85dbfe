-- A job's time limit, QOS and nice may change after its submission
-- (PATCH /jobs/{id}, allot job update). The time limit has its column
-- (time_limit_ns); the QOS and nice are the job file's (spec) until a
-- change sets them here: qos and nice are NULL for a job never changed,
-- which keeps what its job file says. The change's event keeps the
-- values it changed, from and to, NULL for a field left as it was, as
-- 0015 does for priority and weight: the what-if export replays them
-- as set_time_limit, set_qos and set_nice events. Keep in step with
-- migrations/postgres/0020_job_limits_changed.sql.
ALTER TABLE jobs ADD COLUMN qos TEXT;
ALTER TABLE jobs ADD COLUMN nice INTEGER;
ALTER TABLE events ADD COLUMN time_limit_from_ns INTEGER;
ALTER TABLE events ADD COLUMN time_limit_to_ns INTEGER;
ALTER TABLE events ADD COLUMN qos_from TEXT;
ALTER TABLE events ADD COLUMN qos_to TEXT;
ALTER TABLE events ADD COLUMN nice_from INTEGER;
ALTER TABLE events ADD COLUMN nice_to INTEGER;
