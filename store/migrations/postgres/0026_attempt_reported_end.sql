-- What an agent reported, once back, of an attempt the master had ended
-- lost meanwhile and requeued (or otherwise left ended lost): how its
-- processes ended by the agent's word (reported_end: completed, failed,
-- preempted or killed; '' when none was reported) and the agent's own
-- words for it (reported_reason, e.g. the task shim's fence that asked
-- for the checkpoint and stopped it). The attempt stays lost, ended when
-- the master gave up on it (ended_ns); its exited_ns moves back to the
-- reported exit, which its usage is charged until (store.NoteLostExit).
-- Keep in step with migrations/sqlite/0026_attempt_reported_end.sql.
ALTER TABLE attempts ADD COLUMN reported_end TEXT NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN reported_reason TEXT NOT NULL DEFAULT '';
