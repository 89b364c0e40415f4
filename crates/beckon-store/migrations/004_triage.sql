-- Triage at scale: rules the person made may allow on their behalf, and every resolved question
-- or approval leaves one row in the audit trail.

-- SQLite cannot change a CHECK constraint in place: the questions table is rebuilt so a rule
-- can be where an answer came from. Dropping the old table runs its foreign keys' cascades,
-- so the rows that point at questions are kept aside and put back once the new table has
-- taken the old one's name.
CREATE TEMP TABLE kept_channel_messages AS SELECT * FROM channel_messages;
CREATE TEMP TABLE kept_question_tokens AS SELECT * FROM question_tokens;

CREATE TABLE questions_v3 (
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
                                            'slack', 'telegram', 'rule')),
    callback_url    TEXT,
    created_at      INTEGER NOT NULL,
    resolved_at     INTEGER,
    expires_at      INTEGER,
    expiry_policy   TEXT,
    answered_by     TEXT,
    CHECK ((status = 'pending') = (outcome IS NULL AND resolved_at IS NULL))
) STRICT, WITHOUT ROWID;

INSERT INTO questions_v3 (id, session_id, tool_use_id, agent, origin, request, status, outcome, answered_via,
                          callback_url, created_at, resolved_at, expires_at, expiry_policy, answered_by)
    SELECT id, session_id, tool_use_id, agent, origin, request, status, outcome, answered_via,
           callback_url, created_at, resolved_at, expires_at, expiry_policy, answered_by
    FROM questions;
DROP TABLE questions;
ALTER TABLE questions_v3 RENAME TO questions;

CREATE UNIQUE INDEX questions_one_pending_per_session ON questions (session_id) WHERE status = 'pending';
CREATE INDEX questions_pending ON questions (created_at, id, session_id, agent, origin, request, expires_at)
    WHERE status = 'pending';
CREATE INDEX questions_expiring ON questions (expires_at) WHERE status = 'pending' AND expires_at IS NOT NULL;

INSERT INTO channel_messages SELECT * FROM kept_channel_messages;
INSERT INTO question_tokens SELECT * FROM kept_question_tokens;
DROP TABLE kept_channel_messages;
DROP TABLE kept_question_tokens;

-- One row per resolved question or approval, written in the transaction that resolves it.
-- No foreign key: retention deletes sessions and their questions, and the audit outlives them
-- for its own period.
CREATE TABLE audit (
    id          INTEGER PRIMARY KEY,
    request_id  TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL CHECK (kind IN ('question', 'approval', 'form')),
    agent       TEXT NOT NULL,
    project     TEXT,
    machine     TEXT,
    session     TEXT NOT NULL,
    what        TEXT NOT NULL,
    asked_at    INTEGER NOT NULL,
    resolved_at INTEGER NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('answered', 'declined', 'expired', 'cancelled')),
    decision    TEXT NOT NULL
                CHECK (decision IN ('allow', 'allow_always', 'deny', 'answered', 'declined', 'expired', 'cancelled')),
    via         TEXT
                CHECK (via IN ('window', 'notification', 'tray', 'deep_link', 'http', 'mcp', 'cli', 'slack',
                               'telegram', 'rule', 'terminal', 'deadline', 'cancelled')),
    answered_by TEXT,
    rule_id     INTEGER,
    message     TEXT,
    rule_key    TEXT,
    rule_spec   TEXT
) STRICT;

-- Export by time, and pruning by age.
CREATE INDEX audit_by_time ON audit (resolved_at, id);
CREATE INDEX audit_by_agent ON audit (agent, id);
-- Counting how often the person allowed the same call, for rule offers.
CREATE INDEX audit_allowed_by_key ON audit (rule_key, resolved_at)
    WHERE rule_key IS NOT NULL AND decision IN ('allow', 'allow_always') AND via IS NOT 'rule';

-- Rules the person made: each allows approvals it covers on their behalf. A revoked rule keeps
-- its row, so the audit's rule ids stay readable; one live rule per key.
CREATE TABLE rules (
    id            INTEGER PRIMARY KEY,
    tool          TEXT NOT NULL,
    matcher       TEXT NOT NULL,
    project       TEXT NOT NULL,
    key           TEXT NOT NULL,
    description   TEXT NOT NULL,
    source        TEXT NOT NULL CHECK (source IN ('offered', 'hand')),
    created_at    INTEGER NOT NULL,
    fired         INTEGER NOT NULL DEFAULT 0,
    last_fired_at INTEGER,
    revoked_at    INTEGER
) STRICT;

CREATE UNIQUE INDEX rules_live_key ON rules (key) WHERE revoked_at IS NULL;

-- Rule offers the person turned down: not offered again.
CREATE TABLE rule_offers_dismissed (
    key TEXT PRIMARY KEY NOT NULL,
    at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
