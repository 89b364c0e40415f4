-- People who paired their own Slack user or Telegram chat (as SQLite's 008_channel_people.sql),
-- and each person's own message of a question addressed to them ("slack:<subject>").
CREATE TABLE channel_people (
    channel         TEXT NOT NULL CHECK (channel IN ('slack', 'telegram')),
    account         TEXT NOT NULL,
    subject         TEXT NOT NULL,
    email           TEXT,
    name            TEXT,
    groups          TEXT NOT NULL,
    paired_at       BIGINT NOT NULL,
    PRIMARY KEY (channel, account)
);

CREATE UNIQUE INDEX channel_people_by_subject ON channel_people (channel, subject);

ALTER TABLE channel_messages DROP CONSTRAINT channel_messages_channel_check;
ALTER TABLE channel_messages ADD CONSTRAINT channel_messages_channel_check
    CHECK (channel IN ('slack', 'telegram') OR channel LIKE 'slack:_%' OR channel LIKE 'telegram:_%');
