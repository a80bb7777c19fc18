// ingest/link_turns — conversation order as graph: the turns of each session (memories
// with an integer `meta.turn`, earlier versions aside) are chained in order by
// (:Memory)-[:NEXT {session}]->(:Memory). The session's chain is rebuilt whole, so a
// re-ingest or a turn written later leaves exactly one edge between neighbours. A
// session lives in one scope, so a chain never crosses scopes.
// Params: $sessions (list of Session ids).
// Returns: linked (NEXT edges in the rebuilt chains).
UNWIND $sessions AS sid
MATCH (s:Session {id: sid})
CALL (s) {
  MATCH (m:Memory)-[:IN_SESSION]->(s)
  WHERE m.`meta.turn` IS NOT NULL AND m.version_of IS NULL
  WITH m ORDER BY m.`meta.turn`, m.created_at, m.id
  RETURN collect(m) AS turns
}
CALL (s, turns) {
  UNWIND turns AS m
  MATCH (m)-[old:NEXT {session: s.id}]->()
  DELETE old
}
CALL (s, turns) {
  UNWIND range(0, size(turns) - 2) AS i
  WITH s, turns[i] AS a, turns[i + 1] AS b
  CREATE (a)-[:NEXT {session: s.id}]->(b)
  RETURN count(*) AS linked
}
RETURN sum(linked) AS linked
