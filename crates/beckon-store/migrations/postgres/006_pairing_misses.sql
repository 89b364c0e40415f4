-- Wrong pairing codes sent to a channel's bot, one row each (as SQLite's
-- 010_pairing_misses.sql): counted per account and per channel over a recent window.
CREATE TABLE pairing_misses (
    channel         TEXT NOT NULL CHECK (channel IN ('slack', 'telegram')),
    account         TEXT NOT NULL,
    at              BIGINT NOT NULL
);

CREATE INDEX pairing_misses_by_account ON pairing_misses (channel, account, at);
CREATE INDEX pairing_misses_by_channel ON pairing_misses (channel, at);
