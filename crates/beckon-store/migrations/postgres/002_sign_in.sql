-- Signing people in on a team server (as SQLite's 006_sign_in.sql): sign-ins under way, each
-- taken at most once before it expires, and signed-in browser sessions by the SHA-256 of their
-- cookie.
CREATE TABLE sign_ins (
    state           TEXT PRIMARY KEY NOT NULL,
    secret          TEXT NOT NULL,
    next            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL
);

CREATE TABLE person_sessions (
    id_hash         BYTEA PRIMARY KEY NOT NULL CHECK (length(id_hash) = 32),
    subject         TEXT NOT NULL,
    email           TEXT,
    name            TEXT,
    groups          TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL
);

CREATE INDEX person_sessions_by_subject ON person_sessions (subject);
