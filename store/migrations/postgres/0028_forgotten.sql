-- What the master forgot past history_retention (PruneJobs), in all: how
-- many finished jobs, the latest end among them and the cutoff of the
-- last prune that forgot any. The what-if export and the decision log
-- start their windows no earlier than that latest end: a window from
-- before it lacks the jobs forgotten, and its replay would start the
-- jobs that waited for them sooner. One row, written in the prune's own
-- transaction. Keep in step with migrations/sqlite/0028_forgotten.sql.
CREATE TABLE forgotten (
    one         INTEGER PRIMARY KEY CHECK (one = 1),
    jobs        BIGINT  NOT NULL CHECK (jobs > 0),
    last_end_ns BIGINT  NOT NULL,
    cutoff_ns   BIGINT  NOT NULL
);
