-- Allot store schema, PostgreSQL dialect. Times are Unix nanoseconds (UTC)
-- in BIGINT, as in SQLite, so that one code path serves both; caller-given
-- JSON (spec, hyperparameters) is json (kept byte for byte), store-encoded
-- JSON is jsonb. Keep in step with migrations/sqlite/0001_init.sql.

CREATE TABLE jobs (
    id              BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name            TEXT    NOT NULL CHECK (name <> ''),
    kind            TEXT    NOT NULL CHECK (kind IN ('experiment', 'command', 'notebook', 'shell', 'tensorboard')),
    project         TEXT    NOT NULL,
    user_name       TEXT    NOT NULL,
    pool            TEXT    NOT NULL CHECK (pool <> ''),
    state           TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'completed', 'failed', 'killed')),
    reason          TEXT    NOT NULL DEFAULT '',
    priority        INTEGER NOT NULL CHECK (priority BETWEEN 1 AND 99),
    priority_class  TEXT    NOT NULL DEFAULT '',
    weight          DOUBLE PRECISION NOT NULL CHECK (weight > 0),
    preemptible     BOOLEAN NOT NULL,
    slots           INTEGER NOT NULL CHECK (slots >= 0),
    max_concurrent  INTEGER NOT NULL DEFAULT 0 CHECK (max_concurrent >= 0),
    max_slots       INTEGER NOT NULL DEFAULT 0 CHECK (max_slots >= 0),
    time_limit_ns   BIGINT  NOT NULL DEFAULT 0 CHECK (time_limit_ns >= 0),
    entrypoint      TEXT    NOT NULL DEFAULT '',
    environment     JSONB   NOT NULL DEFAULT '{}',
    spec            JSON,
    submitted_ns    BIGINT  NOT NULL,
    ended_ns        BIGINT
);
CREATE INDEX jobs_state ON jobs (state, id);
CREATE INDEX jobs_pool ON jobs (pool, id);
CREATE INDEX jobs_project ON jobs (project, id);

CREATE TABLE tasks (
    job_id          BIGINT  NOT NULL REFERENCES jobs (id),
    idx             INTEGER NOT NULL CHECK (idx >= 0),
    state           TEXT    NOT NULL CHECK (state IN ('queued', 'starting', 'running', 'preempting', 'killing',
                                                       'preempted', 'completed', 'failed', 'killed')),
    reason          TEXT    NOT NULL DEFAULT '',
    hyperparameters JSON,
    restarts        INTEGER NOT NULL DEFAULT 0,
    checkpoint_dir  TEXT    NOT NULL DEFAULT '',
    attempt         INTEGER NOT NULL DEFAULT 0 CHECK (attempt >= 0),
    updated_ns      BIGINT  NOT NULL,
    PRIMARY KEY (job_id, idx)
);
CREATE INDEX tasks_state ON tasks (state);

CREATE TABLE attempts (
    job_id      BIGINT  NOT NULL,
    idx         INTEGER NOT NULL,
    attempt     INTEGER NOT NULL CHECK (attempt >= 1),
    placement   JSONB   NOT NULL,
    started_ns  BIGINT  NOT NULL,
    running_ns  BIGINT,
    ended_ns    BIGINT,
    end_state   TEXT    NOT NULL DEFAULT ''
                CHECK (end_state IN ('', 'completed', 'failed', 'killed', 'preempted', 'lost')),
    exit_code   INTEGER,
    reason      TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (job_id, idx, attempt),
    FOREIGN KEY (job_id, idx) REFERENCES tasks (job_id, idx)
);
CREATE INDEX attempts_open ON attempts (job_id, idx) WHERE ended_ns IS NULL;

CREATE TABLE nodes (
    name            TEXT    PRIMARY KEY CHECK (name <> ''),
    pool            TEXT    NOT NULL,
    labels          JSONB   NOT NULL DEFAULT '{}',
    gpus            JSONB   NOT NULL DEFAULT '[]',
    state           TEXT    NOT NULL CHECK (state IN ('up', 'lost')),
    registered_ns   BIGINT  NOT NULL,
    heartbeat_ns    BIGINT  NOT NULL
);

CREATE TABLE logs (
    job_id      BIGINT  NOT NULL,
    idx         INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    seq         BIGINT  NOT NULL CHECK (seq >= 1),
    at_ns       BIGINT  NOT NULL,
    stream      TEXT    NOT NULL CHECK (stream IN ('stdout', 'stderr')),
    line        TEXT    NOT NULL,
    PRIMARY KEY (job_id, idx, attempt, seq),
    FOREIGN KEY (job_id, idx, attempt) REFERENCES attempts (job_id, idx, attempt)
);

CREATE TABLE usage (
    id          BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project     TEXT    NOT NULL,
    user_name   TEXT    NOT NULL,
    pool        TEXT    NOT NULL,
    job_id      BIGINT  NOT NULL DEFAULT 0,
    idx         INTEGER NOT NULL DEFAULT 0,
    attempt     INTEGER NOT NULL DEFAULT 0,
    start_ns    BIGINT  NOT NULL,
    end_ns      BIGINT  NOT NULL CHECK (end_ns >= start_ns),
    gpu_seconds DOUBLE PRECISION NOT NULL CHECK (gpu_seconds >= 0)
);
CREATE INDEX usage_end ON usage (end_ns);

CREATE TABLE events (
    seq         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id      BIGINT  NOT NULL REFERENCES jobs (id),
    idx         INTEGER NOT NULL, -- -1: the job itself
    attempt     INTEGER NOT NULL DEFAULT 0,
    from_state  TEXT    NOT NULL,
    to_state    TEXT    NOT NULL,
    at_ns       BIGINT  NOT NULL,
    reason      TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX events_job ON events (job_id, seq);
