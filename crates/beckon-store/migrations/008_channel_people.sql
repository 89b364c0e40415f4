-- People on a team server who paired their own Slack user or Telegram chat after signing in: a
-- press there is that person's answer, under the same rules as their window's. Who they are is
-- what the identity provider said at pairing, refreshed each time they sign in again.
CREATE TABLE channel_people (
    channel         TEXT NOT NULL CHECK (channel IN ('slack', 'telegram')),
    account         TEXT NOT NULL,
    subject         TEXT NOT NULL,
    email           TEXT,
    name            TEXT,
    groups          TEXT NOT NULL,
    paired_at       INTEGER NOT NULL,
    PRIMARY KEY (channel, account)
) STRICT, WITHOUT ROWID;

CREATE UNIQUE INDEX channel_people_by_subject ON channel_people (channel, subject);

-- A question addressed to people goes to each one's own direct messages: one message per
-- person, kept under the channel's name and the person's subject ("slack:<subject>"). SQLite
-- cannot change a CHECK constraint in place, so the table is rebuilt.
CREATE TABLE channel_messages_v2 (
    channel         TEXT NOT NULL CHECK (channel IN ('slack', 'telegram')
                                         OR channel GLOB 'slack:?*' OR channel GLOB 'telegram:?*'),
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

INSERT INTO channel_messages_v2 SELECT * FROM channel_messages;
DROP TABLE channel_messages;
ALTER TABLE channel_messages_v2 RENAME TO channel_messages;

CREATE INDEX channel_messages_open ON channel_messages (channel, next_attempt_at) WHERE state != 'settled';
