// runs/fence — take run $run from its writer before undoing it: its state becomes
// 'undoing', after which its writer's renewals and its `done` find no run of theirs
// (runs/renew, runs/done), so no chunk of it commits into an undo under way and it is
// never reported landed. With $lapsed_only (another process recovering an abandoned
// run) only a run whose lease has lapsed, checked under the run's lock, so a writer that
// renewed meanwhile keeps it; a run already being undone is taken again (an undo cut
// short is finished), and a run marked done is never taken.
// Params: $run, $lease, $lapsed_only (boolean).
// Returns: run (no row: the run is its writer's, done, or gone).
MATCH (r:ImportRun {id: $run})
SET r.fenced_at = datetime()
WITH r
WHERE r.state = 'undoing'
   OR (r.state <> 'done' AND (NOT $lapsed_only OR
       coalesce(r.lease_until, r.started_at + duration({seconds: $lease})) < datetime()))
SET r.state = 'undoing'
RETURN r.id AS run
