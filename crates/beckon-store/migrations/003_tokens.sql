-- Tokens for agents on other machines, kept only as the SHA-256 of their secret: the secret is
-- shown once when made and is nowhere in this file. A name names one live token at a time; a
-- revoked token keeps its row, so the questions it asked still say which token asked them.
CREATE TABLE tokens (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('ask_only')),
    secret_hash     BLOB NOT NULL UNIQUE CHECK (length(secret_hash) = 32),
    created_at      INTEGER NOT NULL,
    last_used_at    INTEGER,
    revoked_at      INTEGER
) STRICT;

CREATE UNIQUE INDEX tokens_live_name ON tokens (name) WHERE revoked_at IS NULL;

-- Which token asked a question. Questions the person's own token, the window or Beckon's own
-- agents asked have no row here.
CREATE TABLE question_tokens (
    request_id      TEXT PRIMARY KEY NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    token_id        INTEGER NOT NULL REFERENCES tokens (id)
) STRICT, WITHOUT ROWID;

CREATE INDEX question_tokens_by_token ON question_tokens (token_id);
