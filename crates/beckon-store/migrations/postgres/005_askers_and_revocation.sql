-- As SQLite's 009_askers_and_revocation.sql: who asked (a signed-in person), what kind of
-- session a person's is, and when a paired person last signed in.
ALTER TABLE questions ADD COLUMN asked_by_subject TEXT;
ALTER TABLE questions ADD COLUMN asked_by TEXT;

ALTER TABLE person_sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'browser' CHECK (kind IN ('browser', 'app'));
ALTER TABLE person_sessions ADD COLUMN label TEXT;

ALTER TABLE channel_people ADD COLUMN signed_in_at BIGINT NOT NULL DEFAULT 0;
UPDATE channel_people SET signed_in_at = paired_at;
