// runs/done — mark run $run done, inside the transaction that writes its last part: the
// run's outcome is decided by that one commit (before it the run is undone whole, after
// it kept whole).
// Params: $run.
// Returns: run (no row if the run is gone or being undone: runs/fence).
MATCH (r:ImportRun {id: $run})
WHERE r.state = 'running'
SET r.state = 'done'
RETURN r.id AS run
