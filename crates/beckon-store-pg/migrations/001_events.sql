-- The event log. `seq` is handed out by `event_seq`'s single row, which a transaction keeps
-- locked from its first event to its commit: the next writer waits, so numbers are taken in
-- commit order and a reader following `seq` never passes over one committed late. A rolled-back
-- transaction returns its numbers with it, so there are no gaps.
CREATE TABLE event_seq (
    only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    last     BIGINT NOT NULL
);
INSERT INTO event_seq (last) VALUES (0);

CREATE TABLE events (
    seq         BIGINT PRIMARY KEY,
    kind        TEXT NOT NULL,
    session_id  TEXT,
    request_id  TEXT,
    payload     TEXT NOT NULL,
    at          BIGINT NOT NULL
);
