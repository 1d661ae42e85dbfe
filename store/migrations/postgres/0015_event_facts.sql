-- More of what programs read off the event log, kept as facts rather
-- than read back from the reasons users see (0014 began it). A task's
-- transition keeps its cause: 'start_failed' where a start failed (its
-- end in failed, and for a gang the kill of its other parts and that
-- kill's end), 'moved' and 'resized' where a move or a resize asked it
-- to checkpoint (to preempting), 'time_limit' where its time limit
-- killed it (to killing, and that kill's end), 'unplaced' where a move
-- or resize whose new placement lost a node became a preemption (its
-- requeue, or failure by its exit actions). A change of a job's
-- priority, weight or preemptibility keeps the values it changed, from
-- and to, NULL for a field left as it was. The what-if export, the
-- decision log and the preemption budgets read them. Events written
-- before this migration said so in their reasons only ("could not
-- start", "time limit of ", "moving to make room", "resizing to ", "a
-- node of its new placement is down", and "priority 40 → 10, priority
-- class "NORMAL" → "HIGH", weight 1 → 2, preemptible true → false",
-- then ": " and why), which are read once here as those readers read
-- them. Only a number the store could have written is cast, so that no
-- reason fails the migration. Keep in step with
-- migrations/sqlite/0015_event_facts.sql.
ALTER TABLE events ADD COLUMN priority_from INTEGER;
ALTER TABLE events ADD COLUMN priority_to INTEGER;
ALTER TABLE events ADD COLUMN weight_from DOUBLE PRECISION;
ALTER TABLE events ADD COLUMN weight_to DOUBLE PRECISION;
ALTER TABLE events ADD COLUMN preemptible_from BOOLEAN;
ALTER TABLE events ADD COLUMN preemptible_to BOOLEAN;
UPDATE events SET cause = 'start_failed'
    WHERE idx >= 0 AND reason LIKE 'could not start%' AND to_state IN ('failed', 'killing');
UPDATE events SET cause = 'moved' WHERE idx >= 0 AND to_state = 'preempting' AND reason LIKE 'moving to make room%';
UPDATE events SET cause = 'resized' WHERE idx >= 0 AND to_state = 'preempting' AND reason LIKE 'resizing to %';
UPDATE events SET cause = 'time_limit'
    WHERE idx >= 0 AND reason LIKE 'time limit of %' AND (to_state = 'killing' OR from_state = 'killing');
UPDATE events SET cause = 'unplaced'
    WHERE idx >= 0 AND from_state = 'preempted' AND (to_state = 'queued' AND reason = 'requeued: a node of its new placement is down'
        OR to_state = 'failed' AND reason LIKE '%: a node of its new placement is down');
UPDATE events SET priority_from = substring(reason from '^priority ([0-9]+) → ')::integer,
        priority_to = substring(reason from '^priority [0-9]+ → ([0-9]+)')::integer
    WHERE idx = -1 AND from_state = to_state AND reason ~ '^priority [0-9]+ → [0-9]+';
UPDATE events SET weight_from = substring(split_part(reason, ': ', 1)
            from '(?:^|, )weight ([0-9]+(?:\.[0-9]+)?(?:e[-+][0-9]+)?) → ')::double precision,
        weight_to = substring(split_part(reason, ': ', 1)
            from '(?:^|, )weight [^ ]+ → ([0-9]+(?:\.[0-9]+)?(?:e[-+][0-9]+)?)(?:,|$)')::double precision
    WHERE idx = -1 AND from_state = to_state
        AND split_part(reason, ': ', 1) ~ '(^|, )weight [0-9]+(\.[0-9]+)?(e[-+][0-9]+)? → [0-9]+(\.[0-9]+)?(e[-+][0-9]+)?(,|$)';
UPDATE events SET preemptible_from = split_part(reason, ': ', 1) ~ '(^|, )preemptible true → ',
        preemptible_to = split_part(reason, ': ', 1) ~ '(^|, )preemptible false → '
    WHERE idx = -1 AND from_state = to_state
        AND split_part(reason, ': ', 1) ~ '(^|, )preemptible (true → false|false → true)(,|$)';
