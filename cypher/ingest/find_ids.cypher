// ingest/find_ids — which of these ids exist, in which scope, and in which sessions.
// Used before a write (an id may not move across scopes; supersedes and links must point
// at memories of the same scope) and inside it (confirmation arithmetic needs sessions).
// Params: $ids (list of string).
// Returns: id, scope, kind, confidence, sessions (list of Session ids).
UNWIND $ids AS wanted
MATCH (m:Memory {id: wanted})
OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
RETURN m.id AS id, m.scope AS scope, m.kind AS kind, m.confidence AS confidence,
       collect(s.id) AS sessions
