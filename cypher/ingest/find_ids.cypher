// ingest/find_ids — which of these ids exist in $scope, and in which sessions. An id names
// a memory within its scope: another scope's memory of the same id is not seen.
// Used before a write (supersedes and links must point at memories of the scope) and
// inside it (confirmation arithmetic needs sessions).
// Params: $ids (list of string), $scope.
// Returns: id, scope, kind, confidence, content_hash, sessions (list of Session ids).
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
RETURN m.id AS id, m.scope AS scope, m.kind AS kind, m.confidence AS confidence,
       m.content_hash AS content_hash,
       collect(s.id) AS sessions
