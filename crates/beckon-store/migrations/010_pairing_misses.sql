-- Wrong pairing codes sent to a channel's bot on a team server, one row each: the account that
-- sent it and when. Counted over a recent window, per account and for the whole channel, so
-- that guessing stops long before a code is found (every replica reads the same counts);
-- forgotten once older than any window.
CREATE TABLE pairing_misses (
    channel         TEXT NOT NULL CHECK (channel IN ('slack', 'telegram')),
    account         TEXT NOT NULL,
    at              INTEGER NOT NULL
) STRICT;

CREATE INDEX pairing_misses_by_account ON pairing_misses (channel, account, at);
CREATE INDEX pairing_misses_by_channel ON pairing_misses (channel, at);
