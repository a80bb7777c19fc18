// runs/renew — the writer of run $run is alive: its lease lasts $lease seconds more. Run
// by the writer's heartbeat and last in each of its chunks' transactions, so a chunk
// never commits into a run another process has taken to undo (runs/fence).
// Params: $run, $lease.
// Returns: run (no row if the run is gone or being undone).
MATCH (r:ImportRun {id: $run})
WHERE r.state <> 'undoing'
SET r.lease_until = datetime() + duration({seconds: $lease})
RETURN r.id AS run
