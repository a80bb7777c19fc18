// runs/begin — record a run: an input too big for one transaction, written in chunks
// that each commit (docs/decisions.md, "One input, one outcome"). Its memories carry
// `import_run` = $run, so a run that fails or whose writer dies can be taken out whole
// (runs/undo_*). The run is its writer's while its lease lasts: $lease seconds from the
// writer's last sign of life (runs/renew), counted by the server's clock so that no two
// processes' clocks are compared.
// Params: $run, $scope, $now, $records, $lease.
// Returns: nothing.
CREATE (:ImportRun {id: $run, scope: $scope, started_at: $now, records: $records,
                    state: 'running',
                    lease_until: datetime() + duration({seconds: $lease})})
