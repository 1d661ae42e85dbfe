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
-- them. GLOB, not LIKE: it minds case, as they did. Keep in step with
-- migrations/postgres/0015_event_facts.sql.
ALTER TABLE events ADD COLUMN priority_from INTEGER;
ALTER TABLE events ADD COLUMN priority_to INTEGER;
ALTER TABLE events ADD COLUMN weight_from REAL;
ALTER TABLE events ADD COLUMN weight_to REAL;
ALTER TABLE events ADD COLUMN preemptible_from INTEGER CHECK (preemptible_from IN (0, 1));
ALTER TABLE events ADD COLUMN preemptible_to INTEGER CHECK (preemptible_to IN (0, 1));
UPDATE events SET cause = 'start_failed'
    WHERE idx >= 0 AND reason GLOB 'could not start*' AND to_state IN ('failed', 'killing');
UPDATE events SET cause = 'moved' WHERE idx >= 0 AND to_state = 'preempting' AND reason GLOB 'moving to make room*';
UPDATE events SET cause = 'resized' WHERE idx >= 0 AND to_state = 'preempting' AND reason GLOB 'resizing to *';
UPDATE events SET cause = 'time_limit'
    WHERE idx >= 0 AND reason GLOB 'time limit of *' AND (to_state = 'killing' OR from_state = 'killing');
UPDATE events SET cause = 'unplaced'
    WHERE idx >= 0 AND from_state = 'preempted' AND (to_state = 'queued' AND reason = 'requeued: a node of its new placement is down'
        OR to_state = 'failed' AND reason GLOB '*: a node of its new placement is down');
UPDATE events SET priority_from = CAST(substr(reason, 10) AS INTEGER),
        priority_to = CAST(substr(reason, instr(reason, ' → ') + 3) AS INTEGER)
    WHERE idx = -1 AND from_state = to_state AND reason GLOB 'priority [0-9]* → [0-9]*';
UPDATE events SET weight_from = CAST(substr(reason, c.k + 7) AS REAL),
        weight_to = CAST(substr(reason, c.k + 9 + instr(substr(reason, c.k + 7), ' → ')) AS REAL)
    FROM (SELECT seq, instr(', ' || reason, ', weight ') AS k, instr(reason || ': ', ': ') AS why
        FROM events WHERE idx = -1 AND from_state = to_state) AS c
    WHERE events.seq = c.seq AND c.k > 0 AND c.k < c.why;
UPDATE events SET preemptible_from = substr(reason, c.k + 12, 4) = 'true',
        preemptible_to = substr(reason, c.k + 12, 5) = 'false'
    FROM (SELECT seq, instr(', ' || reason, ', preemptible ') AS k, instr(reason || ': ', ': ') AS why
        FROM events WHERE idx = -1 AND from_state = to_state) AS c
    WHERE events.seq = c.seq AND c.k > 0 AND c.k < c.why
        AND (substr(reason, c.k + 12) GLOB 'true → false*' OR substr(reason, c.k + 12) GLOB 'false → true*');
