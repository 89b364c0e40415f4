-- Channels (Slack, Telegram): answers may come from them, the answer records who gave it, and
-- each question's message on a channel is a row written before the post is sent.

-- SQLite cannot change a CHECK constraint in place: the questions table is rebuilt with the
-- two new front ends and the answerer's identity.
CREATE TABLE questions_v2 (
    id              TEXT PRIMARY KEY NOT NULL,
    session_id      TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    tool_use_id     TEXT NOT NULL,
    agent           TEXT NOT NULL,
    origin          TEXT NOT NULL,
    request         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'declined', 'expired', 'cancelled')),
    outcome         TEXT,
    answered_via    TEXT
                    CHECK (answered_via IN ('window', 'notification', 'tray', 'deep_link', 'http', 'mcp', 'cli',
                                            'slack', 'telegram')),
    callback_url    TEXT,
    created_at      INTEGER NOT NULL,
    resolved_at     INTEGER,
    expires_at      INTEGER,
    expiry_policy   TEXT,
    answered_by     TEXT,
    CHECK ((status = 'pending') = (outcome IS NULL AND resolved_at IS NULL))
) STRICT, WITHOUT ROWID;

INSERT INTO questions_v2 (id, session_id, tool_use_id, agent, origin, request, status, outcome, answered_via,
                          callback_url, created_at, resolved_at, expires_at, expiry_policy)
    SELECT id, session_id, tool_use_id, agent, origin, request, status, outcome, answered_via,
           callback_url, created_at, resolved_at, expires_at, expiry_policy
    FROM questions;
DROP TABLE questions;
ALTER TABLE questions_v2 RENAME TO questions;

CREATE UNIQUE INDEX questions_one_pending_per_session ON questions (session_id) WHERE status = 'pending';
CREATE INDEX questions_pending ON questions (created_at, id, session_id, agent, origin, request, expires_at)
    WHERE status = 'pending';
CREATE INDEX questions_expiring ON questions (expires_at) WHERE status = 'pending' AND expires_at IS NOT NULL;

-- A question's message on a channel. `posting` is written (with the channel's mark) before
-- the post is sent, so after a crash the channel looks for the message instead of posting a
-- second one; `waiting` is a post that failed for certain and waits for its next attempt.
CREATE TABLE channel_messages (
    channel         TEXT NOT NULL CHECK (channel IN ('slack', 'telegram')),
    request_id      TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    state           TEXT NOT NULL CHECK (state IN ('waiting', 'posting', 'posted', 'settled')),
    mark            TEXT,
    conversation    TEXT,
    message         TEXT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error      TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    CHECK ((state IN ('posted', 'settled')) = (conversation IS NOT NULL AND message IS NOT NULL)),
    PRIMARY KEY (channel, request_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX channel_messages_open ON channel_messages (channel, next_attempt_at) WHERE state != 'settled';
