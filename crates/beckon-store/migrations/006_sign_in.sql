-- Signing people in on a team server. A sign-in under way is kept from the moment the person
-- is sent to the identity provider until they come back (at most once, and only until it
-- expires): the state it is looked up by, and what only the server may know (the nonce and the
-- PKCE verifier, as the gateway writes them). A signed-in browser session is kept only as the
-- SHA-256 of its cookie, with who the provider said the person is.
CREATE TABLE sign_ins (
    state           TEXT PRIMARY KEY NOT NULL,
    secret          TEXT NOT NULL,
    next            TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE person_sessions (
    id_hash         BLOB PRIMARY KEY NOT NULL CHECK (length(id_hash) = 32),
    subject         TEXT NOT NULL,
    email           TEXT,
    name            TEXT,
    groups          TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX person_sessions_by_subject ON person_sessions (subject);
