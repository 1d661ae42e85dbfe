-- The history of the nodes' states: each time a node was lost or came
-- back up (a registration after a loss, or a first one), when, so that the
-- what-if export can replay node losses (node_down, node_up). Keep in
-- step with migrations/sqlite/0009_node_history.sql.
CREATE TABLE node_events (
    seq         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    node        TEXT    NOT NULL,
    from_state  TEXT    NOT NULL, -- '': a node registered for the first time
    to_state    TEXT    NOT NULL,
    at_ns       BIGINT  NOT NULL
);
CREATE INDEX node_events_at ON node_events (at_ns, seq);
