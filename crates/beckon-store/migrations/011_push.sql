-- Web Push on a team server. A device is one browser's push subscription, made by a signed-in
-- person and kept only while the sign-in it was made in lasts (signing out, an admin ending the
-- person's sessions, or the session's expiry removes it): the push service's URL for it and
-- the browser's keys (RFC 8291's P-256 public key and authentication secret, base64url).
CREATE TABLE push_devices (
    endpoint        TEXT PRIMARY KEY NOT NULL,
    session_hash    BLOB NOT NULL REFERENCES person_sessions (id_hash) ON DELETE CASCADE,
    subject         TEXT NOT NULL,
    p256dh          TEXT NOT NULL,
    auth            TEXT NOT NULL,
    created_at      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX push_devices_by_session ON push_devices (session_hash);

-- The push outbox: one row per device and question, written as `sending` before the push is
-- sent (a crash mid-send leaves it due again), `sent` once the push service took it, `failed`
-- when it was given up. A row's question may have been pushed with others, counted in one
-- message.
CREATE TABLE push_messages (
    endpoint        TEXT NOT NULL REFERENCES push_devices (endpoint) ON DELETE CASCADE,
    request_id      TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    state           TEXT NOT NULL CHECK (state IN ('sending', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    next_attempt_at INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (endpoint, request_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX push_messages_due ON push_messages (state, next_attempt_at);
CREATE INDEX push_messages_by_question ON push_messages (request_id);
