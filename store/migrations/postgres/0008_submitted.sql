-- GET /jobs?since= lists the jobs submitted at or after a time, newest
-- first: without an index on the submission time the scan went down the
-- ids to the first job ever whenever fewer than a page matched. The index
-- holds the id too, so the least id of a recent window is read from the
-- index alone (store/jobs.go, sinceBoundJobs). Keep in step with migrations/sqlite/0008_submitted.sql.
CREATE INDEX jobs_submitted ON jobs (submitted_ns, id);
