// runs/hold — the first statement of the transaction a run's writer keeps open while it
// runs (Store.held, runs/live); it reads, so it locks nothing.
// Params: $run.
// Returns: run.
RETURN $run AS run
