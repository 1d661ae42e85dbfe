-- A resize's transition to preempting that shrinks a task for another
-- job (for_job) keeps, apart, the rule that lets that job take the
-- task's slots, in words (why: 'quota reclaim: project nlp is below its
-- quota, project vision over it'; '' for every other event), so that a
-- job's view names who it shrinks for and why, after a restart too,
-- without reading it back from the reason users see. Events written
-- before this migration said it in their reasons only ('resizing to 2
-- slots for job 16 (' then the rule and ')'), which are read once here,
-- with the job, for those written before 0019 kept it (for_job).
-- Keep in step with migrations/sqlite/0021_event_why.sql.
ALTER TABLE events ADD COLUMN why TEXT NOT NULL DEFAULT '';
UPDATE events SET why = substring(reason from '^resizing to [0-9]+ slots? for job [0-9]+ \((.*)\)$')
    WHERE idx >= 0 AND to_state = 'preempting' AND cause = 'resized'
        AND reason ~ '^resizing to [0-9]+ slots? for job [0-9]+ \(.*\)$';
UPDATE events SET for_job = substring(reason from '^resizing to [0-9]+ slots? for job ([0-9]+) \(')::bigint
    WHERE idx >= 0 AND to_state = 'preempting' AND cause = 'resized' AND for_job IS NULL
        AND reason ~ '^resizing to [0-9]+ slots? for job [0-9]+ \(';
