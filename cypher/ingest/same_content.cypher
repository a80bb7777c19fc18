// ingest/same_content — memories of a scope whose normalised text equals a new one's.
// The oldest match wins, so repeated statements keep confirming the same memory.
// Params: $scope (string), $hashes (list of content hashes).
// Returns: content_hash, id, confidence, sessions.
MATCH (m:Memory)
WHERE m.content_hash IN $hashes AND m.scope = $scope
WITH m ORDER BY m.created_at, m.id
WITH m.content_hash AS content_hash, collect(m)[0] AS m
OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
RETURN content_hash, m.id AS id, m.confidence AS confidence, collect(s.id) AS sessions
