-- A node whose agent said goodbye (a clean shutdown that reported its
-- tasks' ends) is left, not lost. Keep in step with
-- migrations/sqlite/0012_node_left.sql.
ALTER TABLE nodes DROP CONSTRAINT nodes_state_check;
ALTER TABLE nodes ADD CONSTRAINT nodes_state_check CHECK (state IN ('up', 'lost', 'left'));
