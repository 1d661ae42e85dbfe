-- The exits of a multi-node attempt's parts that the master ended lost
-- (its task failed: a node lost past lost_node_grace): those heard of
-- before the end (a part on a node not lost that exited on its own),
-- written with the end, and those heard of late (an agent back reports
-- a part exited before the end). Once every part has one, the attempt
-- ends as its parts did (AmendLostEnd), as a late exit amends a one-node
-- attempt. One row a part (its node); nothing else reads them.
-- Keep in step with migrations/postgres/0023_part_exits.sql.
CREATE TABLE part_exits (
    job_id      INTEGER NOT NULL,
    idx         INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    node        TEXT    NOT NULL,
    end_state   TEXT    NOT NULL CHECK (end_state IN ('completed', 'failed')),
    exit_code   INTEGER,
    exited_ns   INTEGER NOT NULL,
    PRIMARY KEY (job_id, idx, attempt, node),
    FOREIGN KEY (job_id, idx, attempt) REFERENCES attempts (job_id, idx, attempt)
) WITHOUT ROWID;
