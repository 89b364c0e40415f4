-- Whose questions are whose on a team server. A token may belong to a person
-- (`person:<subject>`) or a group (`group:<name>`); what it asks is addressed to them. A
-- session's audience is fixed by its first question; a session without one is everyone's.
ALTER TABLE tokens ADD COLUMN owner TEXT;

CREATE TABLE session_audiences (
    session_id      TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    audience        TEXT NOT NULL
);
