-- The inbox's line for each question (its kind, project, summary and searchable text), written
-- when it is asked, so the window's start reads a few hundred bytes per waiting question instead
-- of each request whole (options, previews, a tool's entire input). Questions asked before this
-- have none; their line is made from the request when read.
ALTER TABLE questions ADD COLUMN line TEXT;
CREATE INDEX questions_inbox ON questions (created_at, id, session_id, agent, origin, line, expires_at)
    WHERE status = 'pending';
