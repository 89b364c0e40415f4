-- Web Push on a team server (as SQLite's 011_push.sql): each browser's push subscription,
-- kept while the sign-in it was made in lasts, and the push outbox, one row per device and
-- question.
CREATE TABLE push_devices (
    endpoint        TEXT PRIMARY KEY NOT NULL,
    session_hash    BYTEA NOT NULL REFERENCES person_sessions (id_hash) ON DELETE CASCADE,
    subject         TEXT NOT NULL,
    p256dh          TEXT NOT NULL,
    auth            TEXT NOT NULL,
    created_at      BIGINT NOT NULL
);

CREATE INDEX push_devices_by_session ON push_devices (session_hash);

CREATE TABLE push_messages (
    endpoint        TEXT NOT NULL REFERENCES push_devices (endpoint) ON DELETE CASCADE,
    request_id      TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    state           TEXT NOT NULL CHECK (state IN ('sending', 'sent', 'failed')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    last_error      TEXT,
    next_attempt_at BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (endpoint, request_id)
);

CREATE INDEX push_messages_due ON push_messages (state, next_attempt_at);
CREATE INDEX push_messages_by_question ON push_messages (request_id);
