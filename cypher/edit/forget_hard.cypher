// edit/forget_hard — forget for good: the memory, its stored earlier versions and all
// their edges are deleted (entity degrees follow), and a Tombstone keeps only its id,
// content hash, scope, time and who — never the text.
// Params: $id, $scope, $now, $by.
// Returns: id, versions (earlier versions deleted) — no row if missing from the scope.
MATCH (m:Memory {id: $id, scope: $scope})
OPTIONAL MATCH (v:Memory {version_of: m.id})
WITH m, collect(v) AS versions
CREATE (t:Tombstone {id: m.id, content_hash: m.content_hash, scope: m.scope,
                     forgotten_at: $now, forgotten_by: $by})
WITH m, versions
CALL (m, versions) {
  UNWIND [m] + versions AS x
  MATCH (x)-[:MENTIONS]->(e:Entity)
  SET e.degree = coalesce(e.degree, 1) - 1
}
WITH m, versions, m.id AS id
FOREACH (x IN versions | DETACH DELETE x)
DETACH DELETE m
RETURN id, size(versions) AS versions
