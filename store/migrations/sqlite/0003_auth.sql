-- Identity: users, their roles per project, credentials and the audit log,
-- SQLite dialect. Keep in step with migrations/postgres/0003_auth.sql.

CREATE TABLE users (
    name        TEXT    PRIMARY KEY,
    admin       INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
    disabled    INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    created_ns  INTEGER NOT NULL
);

-- project '*' binds the role in every project.
CREATE TABLE roles (
    user_name   TEXT    NOT NULL REFERENCES users (name),
    project     TEXT    NOT NULL,
    role        TEXT    NOT NULL CHECK (role IN ('viewer', 'member', 'lead')),
    PRIMARY KEY (user_name, project)
);

-- A credential is a bearer secret kept only as its SHA-256: a user's API
-- token (subject: the user), an agents' join token (subject: who made it)
-- or a node's own credential (subject: the node).
CREATE TABLE credentials (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT    NOT NULL CHECK (kind IN ('user', 'join', 'node')),
    subject     TEXT    NOT NULL,
    hash        TEXT    NOT NULL UNIQUE,
    note        TEXT    NOT NULL DEFAULT '',
    created_by  TEXT    NOT NULL DEFAULT '',
    created_ns  INTEGER NOT NULL,
    expires_ns  INTEGER,
    revoked_ns  INTEGER
);
CREATE INDEX credentials_subject ON credentials (kind, subject);

CREATE TABLE audit (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    at_ns       INTEGER NOT NULL,
    actor       TEXT    NOT NULL,
    action      TEXT    NOT NULL,
    target      TEXT    NOT NULL,
    status      INTEGER NOT NULL,
    detail      TEXT    NOT NULL DEFAULT '',
    request_id  TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_at ON audit (at_ns);
