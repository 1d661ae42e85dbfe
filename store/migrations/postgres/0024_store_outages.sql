-- The times the master found its store unavailable, written when it was
-- back (so an outage the master did not outlive is not here): the what-if
-- export notes those in its window, since what agents reported during
-- one reached the master at its end, and a replay may place decisions
-- around it a pass apart. refused counts the requests the master
-- refused for it.
-- Keep in step with migrations/sqlite/0024_store_outages.sql.
CREATE TABLE store_outages (
    from_ns  BIGINT  NOT NULL PRIMARY KEY,
    until_ns BIGINT  NOT NULL CHECK (until_ns >= from_ns),
    refused  INTEGER NOT NULL CHECK (refused >= 0)
);
