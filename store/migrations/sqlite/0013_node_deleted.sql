-- A node deleted (DELETE /nodes/{name}) leaves the nodes table, but the
-- capacity it gave until then must outlive a master restart: its
-- deletion is a node event (to_state 'deleted') that keeps the node's
-- pool, labels and GPUs as they were, in the same transaction as the
-- delete, so that the what-if export can write the node in its pool.
-- Other events keep the defaults. Keep in step with
-- migrations/postgres/0013_node_deleted.sql.
ALTER TABLE node_events ADD COLUMN pool TEXT NOT NULL DEFAULT '';
ALTER TABLE node_events ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';
ALTER TABLE node_events ADD COLUMN gpus TEXT NOT NULL DEFAULT '[]';
