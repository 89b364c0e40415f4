-- Beckon's first schema. Ids are UUID text, times are Unix milliseconds, JSON is text.

CREATE TABLE sessions (
    id                TEXT PRIMARY KEY NOT NULL,
    agent             TEXT NOT NULL,
    origin            TEXT NOT NULL CHECK (origin IN ('chat', 'webhook', 'external', 'subagent')),
    parent_session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,
    external_key      TEXT,
    title             TEXT NOT NULL DEFAULT '',
    status            TEXT NOT NULL
                      CHECK (status IN ('running', 'waiting_for_input', 'completed', 'failed', 'cancelled')),
    state             TEXT NOT NULL,
    payload           TEXT,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
) STRICT;

-- Lists go newest first by creation, which never changes, so a status change moves no entry.
CREATE INDEX sessions_by_creation ON sessions (created_at DESC, id DESC);
-- Only sessions that are running or waiting: recovery at start reads these.
CREATE INDEX sessions_active ON sessions (status) WHERE status IN ('running', 'waiting_for_input');
CREATE INDEX sessions_by_parent ON sessions (parent_session_id) WHERE parent_session_id IS NOT NULL;
CREATE UNIQUE INDEX sessions_by_external_key ON sessions (agent, external_key) WHERE external_key IS NOT NULL;

-- A session's timeline, in order: user, assistant, tool_use, tool_result, question, answer.
CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    kind       TEXT NOT NULL
               CHECK (kind IN ('user', 'assistant', 'tool_use', 'tool_result', 'question', 'answer')),
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, position)
) STRICT, WITHOUT ROWID;

CREATE TABLE questions (
    id              TEXT PRIMARY KEY NOT NULL,
    session_id      TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    tool_use_id     TEXT NOT NULL,
    agent           TEXT NOT NULL,
    origin          TEXT NOT NULL,
    request         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'declined', 'expired', 'cancelled')),
    outcome         TEXT,
    answered_via    TEXT
                    CHECK (answered_via IN ('window', 'notification', 'tray', 'deep_link', 'http', 'mcp', 'cli')),
    callback_url    TEXT,
    created_at      INTEGER NOT NULL,
    resolved_at     INTEGER,
    expires_at      INTEGER,
    expiry_policy   TEXT,
    CHECK ((status = 'pending') = (outcome IS NULL AND resolved_at IS NULL))
) STRICT, WITHOUT ROWID;

-- The database itself allows at most one pending question per session.
CREATE UNIQUE INDEX questions_one_pending_per_session ON questions (session_id) WHERE status = 'pending';
-- A compact, covering home for the inbox: listing pending questions never touches the large
-- table, so start-up reads a few contiguous index pages instead of one page per question.
CREATE INDEX questions_pending ON questions (created_at, id, session_id, agent, origin, request, expires_at)
    WHERE status = 'pending';
CREATE INDEX questions_expiring ON questions (expires_at) WHERE status = 'pending' AND expires_at IS NOT NULL;

-- Append-only: the next seq is one more than the newest, and the newest is never removed.
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL,
    session_id TEXT,
    request_id TEXT,
    payload    TEXT NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

-- Callbacks to deliver after commit, retried with backoff.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    idempotency_key TEXT NOT NULL UNIQUE,
    target          TEXT NOT NULL,
    format          TEXT NOT NULL CHECK (format IN ('json', 'slack')),
    kind            TEXT NOT NULL,
    payload         TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error      TEXT,
    created_at      INTEGER NOT NULL,
    delivered_at    INTEGER
) STRICT;

CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE state = 'pending';

CREATE TABLE settings (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) STRICT, WITHOUT ROWID;
