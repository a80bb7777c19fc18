// runs/begin — record a run: an input too big for one transaction, written in chunks
// that each commit (docs/decisions.md, "One input, one outcome"). Its memories carry
// `import_run` = $run, so a run that fails or whose writer dies can be
// taken out whole (runs/undo_*). The writer holds a transaction open for as long as it
// runs, tagged with the run's id (runs/live): that is how another process tells a live
// run from an abandoned one.
// Params: $run, $scope, $now, $records.
// Returns: nothing.
CREATE (:ImportRun {id: $run, scope: $scope, started_at: $now, records: $records,
                    state: 'running'})
