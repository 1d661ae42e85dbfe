-- What the what-if export needs to know of a task's transition that
-- ended an attempt no agent reported on, as facts rather than read back
-- from the reason users see: cause 'not_run' when its agent did not run
-- the attempt (it registered again without it, or never answered its
-- start), and part_ran when the task was still starting but a part of
-- its gang ran. Events written before this migration said so in their
-- reasons only (" does not run attempt ", " (a part of it ran)"), which
-- are read once here. Keep in step with
-- migrations/postgres/0014_event_cause.sql.
ALTER TABLE events ADD COLUMN cause TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN part_ran INTEGER NOT NULL DEFAULT 0 CHECK (part_ran IN (0, 1));
UPDATE events SET cause = 'not_run' WHERE reason LIKE '% does not run attempt %';
UPDATE events SET part_ran = 1 WHERE reason LIKE '% (a part of it ran)%';
