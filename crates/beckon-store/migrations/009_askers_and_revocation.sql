-- Who asked a question, when a person signed in on a team server asked it (a token that asked
-- is in question_tokens): their subject, for the rule that only the asker withdraws, and how
-- they are shown ("oidc:ada (Ada Lovelace <ada@example.com>)").
ALTER TABLE questions ADD COLUMN asked_by_subject TEXT;
ALTER TABLE questions ADD COLUMN asked_by TEXT;

-- A signed-in session is a browser's or a connected app's (named by its client and port), so an
-- admin can tell them apart when listing and ending a person's sessions.
ALTER TABLE person_sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'browser' CHECK (kind IN ('browser', 'app'));
ALTER TABLE person_sessions ADD COLUMN label TEXT;

-- When the paired person last signed in: a pairing answers only while that is recent enough.
-- Pairings made before this column start from their pairing time.
ALTER TABLE channel_people ADD COLUMN signed_in_at INTEGER NOT NULL DEFAULT 0;
UPDATE channel_people SET signed_in_at = paired_at;
