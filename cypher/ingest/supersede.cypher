// ingest/supersede — a new memory replaces an old one of the same scope: the old one's
// valid_until is set (never moved later) and (new)-[:SUPERSEDES]->(old) keeps the chain.
// The old memory stays; sweep shadows it.
// Params: $scope, $rows: list of {id, old, at (datetime)}.
// Returns: id, old — one row per link made.
UNWIND $rows AS r
MATCH (new:Memory {id: r.id, scope: $scope}), (old:Memory {id: r.old, scope: $scope})
  USING INDEX SEEK new:Memory(scope, id) USING INDEX SEEK old:Memory(scope, id)
WHERE old <> new
SET old.valid_until = CASE WHEN old.valid_until IS NULL OR r.at < old.valid_until THEN r.at
                           ELSE old.valid_until END
MERGE (new)-[:SUPERSEDES]->(old)
RETURN new.id AS id, old.id AS old
