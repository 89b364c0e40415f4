-- Work one replica does at a time (retention, an in-app session, a channel's poller): whoever
-- holds the row's lease until `expires_at` does it; a replica that dies stops renewing, and
-- after the lease runs out another takes the work over.
CREATE TABLE leases (
    work        TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    expires_at  BIGINT NOT NULL
);
