-- Indexes for the history of a large store (a million finished jobs):
-- /history and job lists filtered by user page through jobs by id within
-- a user; a page of /history sums the usage of its jobs' id range; the
-- window of /history starts at the first job not ended before it. Keep in
-- step with migrations/sqlite/0007_history.sql.
CREATE INDEX jobs_user ON jobs (user_name, id);
CREATE INDEX jobs_ended ON jobs (ended_ns);
CREATE INDEX usage_job ON usage (job_id, id);
