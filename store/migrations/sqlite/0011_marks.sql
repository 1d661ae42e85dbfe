-- Marks: named facts about the cluster's history that, once set, stay
-- set (an elastic job was scheduled, "grows"), so that a restarted master
-- decides as it would have without the restart although the job that
-- set one may have ended and been pruned. One row per mark set. Keep in
-- step with migrations/postgres/0011_marks.sql.
CREATE TABLE marks (
    name        TEXT    PRIMARY KEY
);
