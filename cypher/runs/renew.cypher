// runs/renew — the writer of run $run is alive: its lease lasts $lease seconds more. Run
// by the writer's heartbeat and first in each of its chunks' transactions, so a chunk
// never commits into a run another process has undone as abandoned.
// Params: $run, $lease.
// Returns: run (no row if the run is gone).
MATCH (r:ImportRun {id: $run})
SET r.lease_until = datetime() + duration({seconds: $lease})
RETURN r.id AS run
