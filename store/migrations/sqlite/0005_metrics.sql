-- Validation metrics that trials report (a JSON object of name → number
-- per step). A step is stored once per task: a trial resumed from an
-- older checkpoint may report a step again, and the first report is the
-- one the searcher acted on. id orders the reports as the master received
-- them, so that a restarted master replays its searcher's input in the
-- same order. Keep in step with migrations/postgres/0005_metrics.sql.
CREATE TABLE metrics (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id      INTEGER NOT NULL,
    idx         INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    step        INTEGER NOT NULL CHECK (step >= 0),
    at_ns       INTEGER NOT NULL,
    metrics     TEXT    NOT NULL,
    UNIQUE (job_id, idx, step),
    FOREIGN KEY (job_id, idx, attempt) REFERENCES attempts (job_id, idx, attempt)
);
CREATE INDEX metrics_job ON metrics (job_id, id);
